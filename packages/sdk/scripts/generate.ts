import { writeFileSync } from 'node:fs';
import { startTestService } from '../../server/test/harness';
import { generatedFiles } from './generated-files';

// Starts the service on an in-memory database (sandbox mode, so the sandbox controls are included),
// reads its /openapi.json and writes the SDK's generated sources.
const service = await startTestService('pglite');
try {
  const doc = (await service.get('/openapi.json')).body;
  for (const [name, text] of Object.entries(await generatedFiles(doc))) {
    writeFileSync(new URL(`../src/generated/${name}`, import.meta.url), text);
    console.log(`wrote src/generated/${name}`);
  }
} finally {
  await service.close();
}
