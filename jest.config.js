// Two projects: fast unit specs beside the code, and e2e specs that boot the
// real apps against real Postgres and a private NATS server per suite.
const moduleNameMapper = {
  '^@mailroom/(contracts|errors|auth|config|database|runtime|testing|outbox)$': '<rootDir>/libs/$1/src',
};
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
};
const common = { rootDir: __dirname, testEnvironment: 'node', moduleNameMapper, transform, moduleFileExtensions: ['ts', 'js', 'json'] };

module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,scripts}/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/{apps,libs}/**/test/**/*.e2e-spec.ts', '<rootDir>/scripts/test/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
    },
  ],
  maxWorkers: 2,
  testTimeout: 60000,
};
