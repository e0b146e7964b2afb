// `npm run lock:platforms` after adding a dependency with per-platform binaries (Biome, knip's
// oxc-parser…): the registry this project installs from serves only some of their platform
// packages, so `npm install` leaves the others out of package-lock.json and `npm ci` on a
// clean clone then refuses the lock ("Missing: … from lock file"). This adds an entry for
// each, with its os/cpu/libc, which npm skips on every other platform, as it always does.
import { readFileSync, writeFileSync } from 'node:fs';

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const pkgs = lock.packages;
const OS = [
  'android',
  'darwin',
  'freebsd',
  'linux',
  'win32',
  'openharmony',
  'openbsd',
  'netbsd',
  'sunos',
  'aix',
  'wasm32',
];
const CPU = {
  arm64: 'arm64',
  x64: 'x64',
  ia32: 'ia32',
  arm: 'arm',
  ppc64: 'ppc64',
  riscv64: 'riscv64',
  s390x: 's390x',
  loong64: 'loong64',
  mips64el: 'mips64el',
  ppc64le: 'ppc64',
};
let added = 0;
for (const [path, entry] of Object.entries(pkgs)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (pkgs[key] || pkgs[`${path}/node_modules/${dep}`]) continue;
    const name = dep.split('/').pop();
    const parts = name.replace(/^(cli|binding)-/, '').split('-');
    const os = parts.find((p) => OS.includes(p));
    const cpu = parts.map((p) => CPU[p]).find(Boolean);
    if (!os || !cpu) continue; // not a platform package (e.g. graceful-fs)
    const libc = /musl/.test(name) ? ['musl'] : os === 'linux' && /gnu/.test(name) ? ['glibc'] : undefined;
    pkgs[key] = {
      version: version.replace(/^[\^~]/, ''),
      cpu: [cpu],
      dev: entry.dev,
      ...(libc && { libc }),
      optional: true,
      os: [os],
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} entries`);
