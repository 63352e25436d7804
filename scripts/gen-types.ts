import { writeFileSync, renameSync } from 'node:fs';
import { generateSchemaTypes, generatedTypesPath } from './schemaTypes.ts';

const text = await generateSchemaTypes();
const tmp = `${generatedTypesPath}.tmp`;
writeFileSync(tmp, text);
renameSync(tmp, generatedTypesPath);
console.log(`wrote ${generatedTypesPath}`);
