import { ENV_SCHEMA, VariableSpec } from '@mailroom/config';

/** The README's configuration table, generated from the schema the apps validate at boot. */
export function configurationTable(): string {
  const rows = (Object.entries(ENV_SCHEMA) as [string, VariableSpec<unknown>][]).map(([name, spec]) => {
    const apps = spec.apps === 'all' ? 'all' : spec.apps.join(', ');
    const fallback = spec.default === undefined ? '(required)' : spec.default === '' ? '(empty)' : `\`${spec.default}\``;
    return `| \`${name}\` | ${fallback} | ${apps} | ${spec.description.replace(/\|/g, '\\|')} |`;
  });
  return ['| Variable | Default | Used by | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}
