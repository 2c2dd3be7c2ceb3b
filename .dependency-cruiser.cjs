/**
 * Folio's dependency rules, checked by dependency-cruiser in `npm test`
 * (test/architecture/layers.test.ts). Imports point inwards:
 *   core <- ports <- app <- protocols;  ports <- drivers;  main.ts and cli/ wire them.
 * src/process (the Node process itself: V8's collector) imports nothing of src/.
 * Each rule is shown able to fail by that test, which plants a violating file in a copy.
 */

/** Node built-ins core may use: hashing, HMAC and scrypt are computation, not I/O. */
const CORE_BUILTINS = ['crypto', 'util']
/** npm packages core may use: pure computation only. */
const CORE_PACKAGES = ['fflate']

const builtinNames = (names) => `^(node:)?(${names.join('|')})$`

module.exports = {
  forbidden: [
    {
      name: 'core-no-io-builtins',
      comment: 'src/core is pure: no Node built-in that does I/O (fs, net, http, child_process, ...).',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { dependencyTypes: ['core'], pathNot: builtinNames(CORE_BUILTINS) },
    },
    {
      name: 'core-packages-allow-list',
      comment: 'src/core uses no npm package outside the allow-list (CORE_PACKAGES).',
      severity: 'error',
      from: { path: '^src/core/' },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
        pathNot: `node_modules/(${CORE_PACKAGES.join('|')})/`,
      },
    },
    {
      name: 'core-imports-only-core',
      comment: 'src/core imports nothing of the outer layers.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'ports-import-only-core',
      comment: 'src/ports holds interfaces; the entity types they use come from core.',
      severity: 'error',
      from: { path: '^src/ports/' },
      to: { path: '^src/', pathNot: '^src/(core|ports)/' },
    },
    {
      name: 'app-imports-core-and-ports',
      comment:
        'src/app (use cases) imports core, ports and the validated config type only: never a ' +
        'protocol, a driver or the composition root.',
      severity: 'error',
      from: { path: '^src/app/' },
      to: { path: '^src/', pathNot: '^src/(app|core|ports|config)/' },
    },
    {
      name: 'app-no-packages',
      comment: 'src/app uses no npm package and no I/O built-in (streams are values it passes on).',
      severity: 'error',
      from: { path: '^src/app/' },
      to: {
        dependencyTypes: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
        pathNot: builtinNames(['stream']),
      },
    },
    {
      name: 'protocols-not-each-other',
      comment:
        'A protocol adapter imports no other protocol adapter, except the shared helpers of ' +
        'src/protocols/http.',
      severity: 'error',
      from: { path: '^src/protocols/([^/]+)/' },
      to: { path: '^src/protocols/', pathNot: ['^src/protocols/$1/', '^src/protocols/http/'] },
    },
    {
      name: 'protocols-through-app',
      comment:
        'Protocol adapters reach storage only through src/app: they import app, core, config ' +
        'and protocols only (no ports, no drivers, no composition root).',
      severity: 'error',
      from: { path: '^src/protocols/' },
      to: { path: '^src/', pathNot: '^src/(app|core|config|protocols)/' },
    },
    {
      name: 'protocols-through-app-index',
      comment:
        'Protocol adapters see the application through src/app/index.ts alone: its services ' +
        'and types, never a use case module, the storage context or a helper behind it.',
      severity: 'error',
      from: { path: '^src/protocols/' },
      to: { path: '^src/app/', pathNot: '^src/app/index\\.(ts|js)$' },
    },
    {
      name: 'drivers-import-ports-and-core',
      comment:
        'Drivers implement ports: they import ports and core only, their own files, the ' +
        'helpers drivers of one port share (src/drivers/<port>-shared/, e.g. blob-shared) ' +
        'and the process helpers of src/process (V8\'s collector, run every few MiB of a body).',
      severity: 'error',
      from: { path: '^src/drivers/([^/]+)/' },
      to: {
        path: '^src/',
        pathNot: ['^src/(core|ports|process)/', '^src/drivers/$1/', '^src/drivers/[a-z]+-shared/'],
      },
    },
    {
      name: 'only-main-and-cli-pick-drivers',
      comment: 'Only the composition root (src/main.ts) and src/cli import drivers.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/main\\.(ts|js)$', '^src/cli/', '^src/drivers/'] },
      to: { path: '^src/drivers/' },
    },
    {
      name: 'process-is-a-leaf',
      comment:
        'src/process holds what concerns the Node process itself (V8\'s collector); it imports ' +
        'nothing of src/, so drivers and the composition root can both use it.',
      severity: 'error',
      from: { path: '^src/process/' },
      to: { path: '^src/', pathNot: '^src/process/' },
    },
    {
      name: 'config-is-a-leaf',
      comment: 'src/config validates settings; it imports core at most.',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: '^src/', pathNot: '^src/(config|core)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
}
