#!/usr/bin/env node
// Launcher: loads the TypeScript sources through tsx and runs the CLI.
import { register } from 'tsx/esm/api';

register();
const { main, handlesInterrupts } = await import('../cli/main.ts');
const { exitSoon, installInterrupts } = await import('../cli/interrupts.ts');
const argv = process.argv.slice(2);
const stderr = (text) => process.stderr.write(text);
// Commands that stop cleanly get SIGINT and SIGTERM as an AbortSignal; the others die of them.
const interrupts = handlesInterrupts(argv) ? installInterrupts(stderr) : undefined;
const code = await main(argv, {
  stdout: (text) => process.stdout.write(text),
  stderr,
  interactive: Boolean(process.stderr.isTTY),
  ...(interrupts ? { signal: interrupts.signal } : {}),
});
interrupts?.dispose();
process.exitCode = code;
// A command that drives systems under test must not be kept alive by one of them.
if (interrupts) exitSoon(code, 2000, stderr);
