// scryfall-client (npm), pointed at a local `oracle-tools serve --links scryfall`, making every call it offers.
// Usage: node client_calls.js http://127.0.0.1:PORT '{"name": …, "id": …, …}'
// scryfall-client has no base-URL setting: it sends every request to https://api.scryfall.com/ and follows only
// links that begin so. Node's fetch is wrapped to send those requests to the server instead (docs/serve.md), and the
// server writes its links as Scryfall's (--links scryfall), so the links the client follows come here too.
// Prints a JSON object: for each call, {"ok": <what it answered>} or {"error": <status, code, details>}.
const base = process.argv[2].replace(/\/$/, "");
const SCRYFALL = "https://api.scryfall.com/";
const realFetch = globalThis.fetch;
const asked = [];
globalThis.fetch = (url, options) => {
  const text = String(url);
  asked.push(text);
  return realFetch(text.startsWith(SCRYFALL) ? base + "/" + text.slice(SCRYFALL.length) : text, options);
};
const scryfall = require("scryfall-client");
const client = scryfall.default || scryfall;
client.setApiRequestDelayTime(0); // a local server: no need for Scryfall's pause between requests

const facts = JSON.parse(process.argv[3]);

function plain(value) {
  // the client's models are Arrays with extra fields, or objects with methods: keep the data
  if (Array.isArray(value)) return { items: [...value].map(plain), total_cards: value.total_cards, has_more: value.has_more };
  return value && typeof value === "object" ? JSON.parse(JSON.stringify(value)) : value;
}

(async () => {
  const out = {};
  async function call(name, fn) {
    try {
      out[name] = { ok: plain(await fn()) };
    } catch (e) {
      out[name] = { error: { status: e.status, code: e.code, details: e.details ?? String(e), url: e.originalError?.url } };
    }
  }
  await call("named_exact", () => client.getCardNamed("Forest", { kind: "exact" }));
  await call("named_fuzzy", () => client.getCardNamed(facts.name.toLowerCase(), { kind: "fuzzy" }));
  await call("named_set", () => client.getCardNamed(facts.name, { kind: "exact", set: facts.set }));
  await call("by_id", () => client.getCard(facts.id));
  await call("by_name", () => client.getCard(facts.name, "name"));
  await call("by_multiverse", () => client.getCard(facts.multiverse, "multiverse"));
  await call("by_mtgo", () => client.getCard(facts.mtgo, "mtgo"));
  await call("by_arena", () => client.getCard(facts.arena, "arena"));
  await call("by_tcg", () => client.getCard(facts.tcgplayer, "tcg"));
  await call("by_number", () => client.getCardBySetCodeAndCollectorNumber(facts.set, facts.number));
  await call("autocomplete", () => client.autocomplete(facts.name.slice(0, 6)));
  await call("random", () => client.random("t:goblin"));
  await call("collection", () => client.getCollection([{ name: "Forest" }, { id: facts.id }]));
  await call("sets", () => client.getSets());
  await call("set", () => client.getSet(facts.set));
  await call("set_by_tcg", () => client.getSetByTcgId(facts.set_tcgplayer));
  await call("catalog", () => client.getCatalog("card-names"));
  // the links the client follows: every page of a search, a card's rulings, set, prints and tokens, a set's cards
  await call("search_pages", async () => {
    let page = await client.search("t:goblin");
    const names = [...page].map((c) => c.name);
    while (page.has_more) {
      page = await page.next();
      names.push(...[...page].map((c) => c.name));
    }
    return names;
  });
  const card = await client.getCard(facts.id);
  await call("card_rulings", () => card.getRulings());
  await call("card_set", () => card.getSet());
  await call("card_prints", () => card.getPrints());
  if (facts.token_maker) {
    const withToken = await client.getCardNamed(facts.token_maker, { kind: "exact" });
    await call("card_tokens", () => withToken.getTokens());
  }
  const set = await client.getSet(facts.set);
  await call("set_cards", () => set.getCards());
  out.asked = asked;
  process.stdout.write(JSON.stringify(out), () => process.exit(0));
})().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + "\n");
  process.exit(1);
});
