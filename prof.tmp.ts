import { checkCommand } from './cli/check.ts';
checkCommand(['--preset', 'smoke'], { stdout: () => {}, stderr: () => {}, interactive: false });
