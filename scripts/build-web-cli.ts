// `npm run build:web`: builds the web app (web/ → web/build) with Vite, whether or not it is current.
// `--if-stale` builds only when web/build is missing or was built from other sources (what `npm start` and
// the test setup do by themselves).
import { buildWeb, ensureWebBuild, webBuildStaleReason } from './ensure-web-build.ts';

const say = (line: string) => process.stdout.write(`[web] ${line}\n`);

try {
  if (process.argv.includes('--if-stale')) {
    if (await webBuildStaleReason()) await ensureWebBuild(say);
    else say('web/build is current');
  } else {
    say('building the web app…');
    await buildWeb(say);
  }
} catch (error) {
  process.stderr.write(`[web] ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
