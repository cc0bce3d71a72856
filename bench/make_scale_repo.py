#!/usr/bin/env python3
"""Writes a synthetic ~500,000-tensor repository for bench/scale_inspect.sh, in the layout the test
hub serves from fixtures/: <root>/<org>/<name>/config.json, model.safetensors.index.json and one
<shard>.safetensors.header.json per shard (the hub rebuilds each shard as its 8-byte length, this
header padded to 8 bytes, and a hole as long as the data offsets say).

The model is DeepSeek-V3 with more routed experts, stored in BF16: the real config.json with
n_routed_experts raised (2816 by default) and quantization_config dropped, so no weight_scale_inv
tensors. Tensor names, dtypes and shapes follow the published DeepSeek-V3 checkpoint (the headers in
fixtures/deepseek-ai/DeepSeek-V3 are the reference; --self-check compares against them), including
its MTP layer (layer 61). Tensors go into shards in the checkpoint's save order, cut into contiguous
runs of about equal bytes, as transformers' writer cuts them; inside a shard the data is laid out in
name order, as the published shards are.

  python3 bench/make_scale_repo.py --out DIR [--repo bench-scale/DeepSeek-V3-E2816] [--experts 2816]
  python3 bench/make_scale_repo.py --self-check   # the rules against the real DeepSeek-V3 headers
"""
import argparse
import glob
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "fixtures", "deepseek-ai", "DeepSeek-V3")
BYTES = {"BF16": 2, "F32": 4, "F8_E4M3": 1}


def layer_tensors(cfg, i, moe, dtype):
    """One decoder layer in the published save order: norms and attention, the router, every
    routed expert, the shared expert (the order decides where the shard cuts fall)."""
    H, E, mI = cfg["hidden_size"], cfg["n_routed_experts"], cfg["moe_intermediate_size"]
    heads, rope = cfg["num_attention_heads"], cfg["qk_rope_head_dim"]
    p = f"model.layers.{i}."
    out = [(p + "input_layernorm.weight", "BF16", [H]),
           (p + "self_attn.q_a_proj.weight", dtype, [cfg["q_lora_rank"], H]),
           (p + "self_attn.q_a_layernorm.weight", "BF16", [cfg["q_lora_rank"]]),
           (p + "self_attn.q_b_proj.weight", dtype,
            [heads * (cfg["qk_nope_head_dim"] + rope), cfg["q_lora_rank"]]),
           (p + "self_attn.kv_a_proj_with_mqa.weight", dtype, [cfg["kv_lora_rank"] + rope, H]),
           (p + "self_attn.kv_a_layernorm.weight", "BF16", [cfg["kv_lora_rank"]]),
           (p + "self_attn.kv_b_proj.weight", dtype,
            [heads * (cfg["qk_nope_head_dim"] + cfg["v_head_dim"]), cfg["kv_lora_rank"]]),
           (p + "self_attn.o_proj.weight", dtype, [H, heads * cfg["v_head_dim"]]),
           (p + "post_attention_layernorm.weight", "BF16", [H])]
    if not moe:
        I = cfg["intermediate_size"]
        return out + [(p + "mlp.gate_proj.weight", dtype, [I, H]), (p + "mlp.up_proj.weight", dtype, [I, H]),
                      (p + "mlp.down_proj.weight", dtype, [H, I])]
    # The router stays BF16 and its bias F32 in the published checkpoint, whatever the experts are.
    out += [(p + "mlp.gate.weight", "BF16", [E, H]), (p + "mlp.gate.e_score_correction_bias", "F32", [E])]
    for e in range(E):
        q = f"{p}mlp.experts.{e}."
        out += [(q + "gate_proj.weight", dtype, [mI, H]), (q + "up_proj.weight", dtype, [mI, H]),
                (q + "down_proj.weight", dtype, [H, mI])]
    sI = mI * cfg["n_shared_experts"]
    q = p + "mlp.shared_experts."
    return out + [(q + "gate_proj.weight", dtype, [sI, H]), (q + "up_proj.weight", dtype, [sI, H]),
                  (q + "down_proj.weight", dtype, [H, sI])]


def tensors(cfg, dtype="BF16"):
    """Every tensor of the checkpoint, in save order: embeddings, the decoder layers, the final norm
    and head, then the MTP layers (a full MoE layer plus their own embedding, norms and head)."""
    H, V, L = cfg["hidden_size"], cfg["vocab_size"], cfg["num_hidden_layers"]
    out = [("model.embed_tokens.weight", "BF16", [V, H])]
    for i in range(L):
        out += layer_tensors(cfg, i, i >= cfg["first_k_dense_replace"], dtype)
    out += [("model.norm.weight", "BF16", [H]), ("lm_head.weight", "BF16", [V, H])]
    for i in range(L, L + cfg.get("num_nextn_predict_layers", 0)):
        p = f"model.layers.{i}."
        out += layer_tensors(cfg, i, True, dtype)
        out += [(p + "embed_tokens.weight", "BF16", [V, H]), (p + "enorm.weight", "BF16", [H]),
                (p + "hnorm.weight", "BF16", [H]), (p + "eh_proj.weight", "BF16", [H, 2 * H]),
                (p + "shared_head.norm.weight", "BF16", [H]), (p + "shared_head.head.weight", "BF16", [V, H])]
    return out


def nbytes(tensor):
    return math.prod(tensor[2]) * BYTES[tensor[1]]


def split_in_order(ts, sizes, shard_count):
    """Contiguous runs in save order: a shard ends at the first tensor that takes the running byte
    count to k/shard_count of the total, so there are exactly shard_count of them."""
    total = sum(sizes)
    shards, start, acc = [], 0, 0
    for i, size in enumerate(sizes):
        acc += size
        if len(shards) < shard_count - 1 and acc * shard_count >= total * (len(shards) + 1):
            shards.append(ts[start:i + 1])
            start = i + 1
    shards.append(ts[start:])
    assert len(shards) == shard_count and all(shards), "fewer tensors than shards"
    return shards


def header_text(ts):
    """The shard's JSON header as the published shards have it: keys in name order, data laid out
    in that order from offset 0, no spaces (what json.dumps with separators=(",", ":") writes, built
    by hand because that is several times faster here)."""
    parts = ['{"__metadata__":{"format":"pt"}']
    offset = 0
    for name, dtype, shape in sorted(ts):
        end = offset + nbytes((name, dtype, shape))
        dims = ",".join(map(str, shape))
        parts.append(f'"{name}":{{"dtype":"{dtype}","shape":[{dims}],"data_offsets":[{offset},{end}]}}')
        offset = end
    return ",".join(parts) + "}"


def write_index(f, weight_map, total_size):
    """model.safetensors.index.json as transformers writes it (json.dumps(indent=2, sort_keys=True)
    and a newline), written by hand for the same reason as the headers, and line by line so that
    the 46 MB text is never whole in memory."""
    f.write(f'{{\n  "metadata": {{\n    "total_size": {total_size}\n  }},\n  "weight_map": {{\n')
    sep = ""
    for name in sorted(weight_map):
        f.write(f'{sep}    "{name}": "{weight_map[name]}"')
        sep = ",\n"
    f.write("\n  }\n}\n")


def write_repo(dst, cfg, shard_count):
    ts = tensors(cfg)
    assert len({t[0] for t in ts}) == len(ts), "duplicate tensor names"
    # Written into JSON as they are: nothing in them needs escaping.
    assert all(c.isalnum() or c in "._" for t in ts for c in t[0]), "a tensor name needs escaping"
    sizes = [nbytes(t) for t in ts]
    # transformers' writer names shards with five digits.
    names = [f"model-{i:05d}-of-{shard_count:05d}.safetensors" for i in range(1, shard_count + 1)]
    os.makedirs(dst, exist_ok=True)
    with open(os.path.join(dst, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    weight_map = {}
    for name, shard in zip(names, split_in_order(ts, sizes, shard_count)):
        with open(os.path.join(dst, name + ".header.json"), "w") as f:
            f.write(header_text(shard))
        weight_map.update((t[0], name) for t in shard)
    with open(os.path.join(dst, "model.safetensors.index.json"), "w") as f:
        write_index(f, weight_map, sum(sizes))
    params = sum(math.prod(t[2]) for t in ts)
    return len(ts), params, sum(sizes), os.path.getsize(os.path.join(dst, "model.safetensors.index.json"))


def self_check():
    """With the reference config and FP8 matrices, the rules must name every tensor of the reference
    headers but their scales, with the same dtypes and shapes."""
    cfg = json.load(open(os.path.join(REFERENCE, "config.json")))
    mine = {t[0]: (t[1], t[2]) for t in tensors(cfg, dtype="F8_E4M3")}
    real = {}
    for path in glob.glob(os.path.join(REFERENCE, "*.safetensors.header.json")):
        for name, v in json.load(open(path)).items():
            if name != "__metadata__" and not name.endswith("_scale_inv"):
                real[name] = (v["dtype"], v["shape"])
    if mine != real:
        diff = sorted(set(mine) ^ set(real))
        wrong = [n for n in mine if n in real and mine[n] != real[n]]
        sys.exit(f"self-check failed: {len(diff)} names differ (e.g. {diff[:3]}), {len(wrong)} dtypes or shapes "
                 f"(e.g. {wrong[:3]})")
    print(f"self-check: {len(real)} tensors of {REFERENCE} (scales aside) match the rules")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="fixtures-style root to write <repo> under")
    ap.add_argument("--repo", default="bench-scale/DeepSeek-V3-E2816")
    ap.add_argument("--experts", type=int, default=2816, help="n_routed_experts")
    ap.add_argument("--shards", type=int, default=400)
    ap.add_argument("--config", default=os.path.join(REFERENCE, "config.json"), help="the config to start from")
    ap.add_argument("--self-check", action="store_true")
    args = ap.parse_args()
    if args.self_check:
        return self_check()
    if not args.out:
        ap.error("--out is required")
    cfg = json.load(open(args.config))
    cfg["n_routed_experts"] = args.experts
    cfg.pop("quantization_config", None)
    count, params, total_size, index_bytes = write_repo(os.path.join(args.out, args.repo), cfg, args.shards)
    print(f"{args.repo}: {count} tensors, {params} parameters, {args.shards} shards, total_size {total_size}, "
          f"index {index_bytes} bytes")


if __name__ == "__main__":
    main()
