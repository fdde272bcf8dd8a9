/* A manifest written into a JSON document (the "environment" object of
 * compare's and noise's JSON). Private. */
#ifndef BENCHSITE_MANIFEST_JSON_H
#define BENCHSITE_MANIFEST_JSON_H

#include "benchsite/manifest.h"

#include "buf.h"

/* A manifest as an object of strings in file order (indented by `indent`,
 * written with jsonw.h); {} for NULL or an empty one. */
bs_status bs__json_manifest(bs__buf *b, const bs_manifest *env, int indent);

#endif
