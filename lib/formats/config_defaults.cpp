#include "formats/config_defaults.hpp"

namespace hfi {

// From PretrainedConfig.__init__ and its generation defaults in transformers 4.x
// (src/transformers/configuration_utils.py): what `save_pretrained` wrote for a value left unset.
// id2label/label2id hold the two placeholder labels that num_labels=2 makes.
const Json& pretrained_config_defaults() {
  static const Json kDefaults = parse_json(R"({
    "return_dict": true, "output_hidden_states": false, "output_attentions": false, "torchscript": false,
    "use_bfloat16": false, "tf_legacy_loss": false, "pruned_heads": {}, "chunk_size_feed_forward": 0,
    "is_encoder_decoder": false, "is_decoder": false, "cross_attention_hidden_size": null,
    "add_cross_attention": false, "tie_encoder_decoder": false, "finetuning_task": null,
    "id2label": {"0": "LABEL_0", "1": "LABEL_1"}, "label2id": {"LABEL_0": 0, "LABEL_1": 1},
    "tokenizer_class": null, "prefix": null, "sep_token_id": null, "decoder_start_token_id": null,
    "task_specific_params": null, "problem_type": null,
    "max_length": 20, "min_length": 0, "do_sample": false, "early_stopping": false, "num_beams": 1,
    "num_beam_groups": 1, "diversity_penalty": 0.0, "temperature": 1.0, "top_k": 50, "top_p": 1.0,
    "typical_p": 1.0, "repetition_penalty": 1.0, "length_penalty": 1.0, "no_repeat_ngram_size": 0,
    "encoder_no_repeat_ngram_size": 0, "bad_words_ids": null, "num_return_sequences": 1,
    "output_scores": false, "return_dict_in_generate": false, "forced_bos_token_id": null,
    "forced_eos_token_id": null, "remove_invalid_values": false, "exponential_decay_length_penalty": null,
    "suppress_tokens": null, "begin_suppress_tokens": null
  })", "built-in PretrainedConfig defaults").value();
  return kDefaults;
}

}  // namespace hfi
