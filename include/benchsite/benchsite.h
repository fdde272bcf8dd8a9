/* benchsite: umbrella header. */
#ifndef BENCHSITE_BENCHSITE_H
#define BENCHSITE_BENCHSITE_H

#include "benchsite/analysis.h"
#include "benchsite/archive.h"
#include "benchsite/bisect.h"
#include "benchsite/bootstrap.h"
#include "benchsite/check.h"
#include "benchsite/compare.h"
#include "benchsite/date.h"
#include "benchsite/error.h"
#include "benchsite/history.h"
#include "benchsite/json.h"
#include "benchsite/log.h"
#include "benchsite/manifest.h"
#include "benchsite/markdown.h"
#include "benchsite/metric.h"
#include "benchsite/noise.h"
#include "benchsite/order.h"
#include "benchsite/output.h"
#include "benchsite/plot.h"
#include "benchsite/protocol.h"
#include "benchsite/quantile.h"
#include "benchsite/report.h"
#include "benchsite/resample.h"
#include "benchsite/rng.h"
#include "benchsite/run.h"
#include "benchsite/site.h"
#include "benchsite/template.h"
#include "benchsite/tune.h"
#include "benchsite/views.h"

#endif
