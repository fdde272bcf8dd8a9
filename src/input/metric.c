/* The table of metrics (see metric.h). */
#include "benchsite/metric.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Times are in µs: SI prefixes around it. Peak memory is in KiB, as
 * getrusage reports ru_maxrss: binary prefixes, as ps and top show it. */
static const bs_metric_unit time_units[] = {
    {"ns", 0.0, 1e3}, {"µs", 1.0, 1.0}, {"ms", 1e3, 1e-3}, {"s", 1e6, 1e-6}};
static const bs_metric_unit memory_units[] = {
    {"B", 0.0, 1024.0},
    {"KiB", 1.0, 1.0},
    {"MiB", 1024.0, 1.0 / 1024.0},
    {"GiB", 1048576.0, 1.0 / 1048576.0}};

#define LADDER(u) (u), sizeof(u) / sizeof((u)[0])

static const bs_metric_info table[BS_METRIC_COUNT] = {
    {BS_METRIC_WALL, "wall", "per_call_us", "wall time per call", "µs",
     "fastest", 1, 0, 1, LADDER(time_units), 1},
    {BS_METRIC_CPU, "cpu", "cpu_per_call_us", "CPU time per call", "µs",
     "fastest", 0, 1, 1, LADDER(time_units), 1},
    {BS_METRIC_RSS, "rss", "max_rss_kib", "peak resident memory", "KiB",
     "smallest", 0, 0, 1, LADDER(memory_units), 1},
};

const bs_metric_info *bs_metric_get(bs_metric m) {
  return (unsigned)m < BS_METRIC_COUNT ? &table[m] : NULL;
}

bs_status bs_metric_parse(const char *name, bs_metric *out, bs_error *err) {
  char known[128] = "";
  size_t used = 0;
  for (size_t i = 0; i < BS_METRIC_COUNT; i++) {
    if (!strcmp(name, table[i].name)) {
      *out = table[i].id;
      return BS_OK;
    }
    int w = snprintf(known + used, sizeof known - used, "%s%s",
                     i == 0                     ? ""
                     : i + 1 == BS_METRIC_COUNT ? " or "
                                                : ", ",
                     table[i].name);
    if (w > 0 && (size_t)w < sizeof known - used)
      used += (size_t)w;
  }
  return bs_error_set(err, BS_EUSAGE, NULL, 0, "unknown metric \"%.64s\" (%s)",
                      name, known);
}

int bs_metric_by_column(const char *column) {
  for (size_t i = 0; i < BS_METRIC_COUNT; i++)
    if (!strcmp(column, table[i].column))
      return (int)i;
  return -1;
}

const char *bs_metric_display_unit(bs_metric m, double maxabs, double *factor) {
  const bs_metric_info *mi = bs_metric_get(m);
  if (!mi)
    mi = &table[BS_METRIC_WALL];
  size_t k = mi->base;
  if (maxabs > 0 && isfinite(maxabs)) {
    k = 0;
    while (k + 1 < mi->nunits && maxabs >= mi->units[k + 1].from)
      k++;
  }
  *factor = mi->units[k].factor;
  return mi->units[k].name;
}

bs_status bs_metric_check_direction(bs_metric m, bs_error *err) {
  const bs_metric_info *mi = bs_metric_get(m);
  if (!mi)
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "unknown metric %d", (int)m);
  if (!mi->lower_is_better)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "metric %s: higher is better, which the verdicts do "
                        "not support",
                        mi->name);
  return BS_OK;
}
