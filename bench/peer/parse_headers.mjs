// The header-reading peer for bench/header_parse.sh: what @huggingface/hub's parseSafetensorsMetadata
// does with each shard header once its bytes are in (decode the UTF-8 text, JSON.parse it, count
// the parameters by dtype with the library's own computeNumOfParamsByDtypeSingleFile), over a
// folder of `*.safetensors.header.json` files, read into memory first.
//   node parse_headers.mjs <folder> <passes>
// Prints one JSON line: {"files":..., "tensors":..., "elements":..., "pass_ms":[...]}.
// The library also checks each entry (validateTensorEntry, not exported): left out here, which
// only makes the peer's figure smaller.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { computeNumOfParamsByDtypeSingleFile } from "@huggingface/hub";

const [folder, passesArg] = process.argv.slice(2);
if (!folder) {
  console.error("usage: node parse_headers.mjs <folder> [passes]");
  process.exit(2);
}
const passes = Number(passesArg ?? 20);

// Each header as the bytes a shard starts with: the 8-byte little-endian length, then the JSON.
const shards = readdirSync(folder)
  .filter((name) => name.endsWith(".safetensors.header.json"))
  .sort()
  .map((name) => {
    const json = readFileSync(join(folder, name));
    const bytes = Buffer.alloc(8 + json.length);
    bytes.writeBigUInt64LE(BigInt(json.length), 0);
    json.copy(bytes, 8);
    return bytes;
  });

const decoder = new TextDecoder();
let tensors = 0;
let elements = 0;
const pass_ms = [];
for (let pass = 0; pass < passes; pass++) {
  const started = performance.now();
  let passTensors = 0;
  let passElements = 0;
  for (const bytes of shards) {
    const length = Number(bytes.readBigUInt64LE(0));
    const header = JSON.parse(decoder.decode(bytes.subarray(8, 8 + length)));
    const counts = computeNumOfParamsByDtypeSingleFile(header);
    for (const n of Object.values(counts)) passElements += n;
    passTensors += Object.keys(header).length - ("__metadata__" in header ? 1 : 0);
  }
  pass_ms.push(performance.now() - started);
  tensors = passTensors;
  elements = passElements;
}
console.log(JSON.stringify({ files: shards.length, tensors, elements, pass_ms }));
