/**
 * Start the fake OpenAI server as a standalone process:
 *
 *   node --experimental-strip-types tests/support/fake-openai-cli.ts [--port N] [--host H]
 *
 * Prints exactly one line `FAKE_OPENAI_URL=http://127.0.0.1:PORT/v1` on stdout once listening,
 * then stays up until SIGTERM / SIGINT. Drive it with per-message directives or the
 * /__fake/* control API (see fake-openai.ts).
 */
import { startFakeOpenAI } from "./fake-openai.ts";

function argValue(argv: string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === `--${name}`) return argv[i + 1];
    if (a.startsWith(`--${name}=`)) return a.slice(name.length + 3);
  }
  return undefined;
}

const argv = process.argv.slice(2);
const portArg = argValue(argv, "port") ?? process.env.FAKE_OPENAI_PORT;
const port = portArg === undefined ? 0 : Number(portArg);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`fake-openai: invalid --port ${portArg}`);
  process.exit(2);
}
const host = argValue(argv, "host") ?? "127.0.0.1";

const fake = await startFakeOpenAI({ port, host });
process.stdout.write(`FAKE_OPENAI_URL=${fake.url}\n`);

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  try {
    await fake.close();
  } finally {
    process.exit(signal === "SIGINT" ? 130 : 0);
  }
}
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));
