#!/usr/bin/env node
// Launcher: loads the TypeScript sources through tsx and runs the CLI.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  interactive: Boolean(process.stderr.isTTY),
});
