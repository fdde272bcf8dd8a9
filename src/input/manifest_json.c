#include "manifest_json.h"

#include "jsonw.h"

bs_status bs__json_manifest(bs__buf *b, const bs_manifest *env, int indent) {
  size_t n = env ? bs_manifest_count(env) : 0;
  bs__jobj o;
  bs__jobj_begin(&o, b, indent);
  for (size_t i = 0; i < n; i++)
    bs__jobj_string(&o, bs_manifest_key(env, i), bs_manifest_value(env, i));
  return bs__jobj_end(&o);
}
