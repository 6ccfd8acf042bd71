// The official `openai` npm package against `tts serve`: what a chat front-end or agent written for
// OpenAI's speech API does, pointed at a local base URL.
//   node tests/serve/openai_speech.mjs BASE_URL OUT_FILE FORMAT TEXT [API_KEY]
import fs from "node:fs";
import OpenAI from "openai";

const [baseURL, out, format, input, apiKey] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey: apiKey || "unused", maxRetries: 0, timeout: 60000 });
try {
  const response = await client.audio.speech.create({
    model: "tts-1",
    voice: "alloy",
    input,
    response_format: format,
    speed: 1.0,
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  fs.writeFileSync(out, bytes);
  console.log(JSON.stringify({ bytes: bytes.length, type: response.headers.get("content-type") }));
} catch (error) {
  // The client's own error type carries the server's status and OpenAI error object.
  console.log(JSON.stringify({ status: error.status ?? null, message: error.message }));
  process.exit(3);
}
