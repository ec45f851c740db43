// scryfall-sdk (npm), pointed at a local `oracle-tools serve`, making the calls the tests ask for.
// Usage: node calls.js http://127.0.0.1:PORT '[["Cards", "byMtgoId", [71214]], ["Catalog", "powers", []]]'
// Prints a JSON list with, for each call, {"ok": <the answer>} or {"error": <the SDK's error: status, code, details>}.
const iscry = require("scryfall-sdk/out/IScry");
iscry.ENDPOINT_API = process.argv[2]; // the SDK reads its base URL from this export at each request
const Scry = require("scryfall-sdk");
Scry.setRetry(1); // an error answer is an answer: no retries

(async () => {
  const out = [];
  for (const [api, method, args] of JSON.parse(process.argv[3])) {
    try {
      let answer = Scry[api][method](...args);
      // search and collection answer an emitter of every page's cards: wait for all of them
      answer = typeof answer.waitForAll === "function" ? await answer.waitForAll() : await answer;
      out.push(Array.isArray(answer) && answer.not_found ? { ok: answer, not_found: answer.not_found } : { ok: answer });
    } catch (e) {
      out.push({ error: { status: e.status, code: e.code, details: e.details ?? String(e) } });
    }
  }
  // the SDK's response cache keeps a timer: exit once the answer is written
  process.stdout.write(JSON.stringify(out), () => process.exit(0));
})().catch((e) => { process.stderr.write(String(e) + "\n"); process.exit(1); });
