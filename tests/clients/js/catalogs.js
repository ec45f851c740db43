// scryfall-sdk (npm), pointed at a local `oracle-tools serve`: every catalog it has a method for.
// Usage: node catalogs.js http://127.0.0.1:PORT  -> prints {"method": [values...], ...} as JSON
const iscry = require("scryfall-sdk/out/IScry");
iscry.ENDPOINT_API = process.argv[2]; // the SDK reads its base URL from this export at each request
const Scry = require("scryfall-sdk");

const methods = [
  "cardNames", "artistNames", "wordBank", "supertypes", "cardTypes", "artifactTypes", "battleTypes",
  "creatureTypes", "enchantmentTypes", "landTypes", "planeswalkerTypes", "spellTypes", "powers",
  "toughnesses", "loyalties", "keywordAbilities", "keywordActions", "abilityWords",
];

(async () => {
  const out = {};
  for (const method of methods) {
    if (typeof Scry.Catalog[method] !== "function") continue;
    out[method] = await Scry.Catalog[method]();
  }
  // the SDK's response cache keeps a timer: exit once the answer is written
  process.stdout.write(JSON.stringify(out), () => process.exit(0));
})().catch((e) => { process.stderr.write(String(e) + "\n"); process.exit(1); });
