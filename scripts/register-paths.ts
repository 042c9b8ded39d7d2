import { join } from 'node:path';
import { register } from 'tsconfig-paths';

// Compiled code in dist/ keeps the source layout; point @mailroom/* at the compiled libs.
// Imported first by every entry point (apps' main.ts and these scripts).
register({ baseUrl: join(__dirname, '..'), paths: { '@mailroom/*': ['libs/*/src'] } });
