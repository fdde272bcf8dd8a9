/* History chains and creep: the chained index of consecutive paired
 * comparisons. */
#include "benchsite/history.h"

#include <math.h>
#include <string.h>

static int known(const char *s) { return s && s[0]; }

bs_status bs_history_chain(const bs_history_link *links, size_t n,
                           bs_history_point *points, bs_history_creep *creep,
                           bs_error *err) {
  size_t chains = 0;
  for (size_t k = 0; k < n; k++) {
    const bs_history_link *l = &links[k];
    if (!isfinite(l->delta_pct))
      return bs_error_set(err, BS_EINPUT, NULL, 0,
                          "link %zu of the history has a non-finite delta", k);
    /* The group's previous link: the only one this link can continue. */
    size_t j = k;
    while (j > 0 && links[j - 1].group != l->group)
      j--;
    double step = 1 + l->delta_pct / 100;
    if (j > 0 && known(l->baseline_commit) && known(links[j - 1].commit) &&
        !strcmp(l->baseline_commit, links[j - 1].commit)) {
      const bs_history_point *p = &points[j - 1];
      points[k].chain = p->chain;
      /* An acknowledged link closes its stretch: the product restarts. */
      points[k].chained_index =
          links[j - 1].acknowledged ? step : p->chained_index * step;
    } else {
      points[k].chain = chains++;
      points[k].chained_index = step;
    }
  }
  if (!creep)
    return BS_OK;
  memset(creep, 0, sizeof *creep);
  if (n == 0)
    return BS_OK;
  size_t last = n - 1, chain = points[last].chain;
  creep->has_chain = 1;
  creep->chain = chain;
  creep->index = points[last].chained_index;
  creep->creep_pct = 100 * (creep->index - 1);
  /* The stretch I_last multiplies: back along the chain to the link after
   * the last acknowledged one. */
  int up = creep->creep_pct > 0, excluded = 0;
  for (size_t k = n; k-- > 0;) {
    if (points[k].chain != chain)
      continue;
    if (k != last && links[k].acknowledged)
      break;
    creep->links++;
    if (up ? links[k].significant_regression : links[k].significant_improvement)
      excluded = 1;
  }
  creep->creeping = fabs(creep->creep_pct) >= BS_HISTORY_CREEP_PCT && !excluded;
  return BS_OK;
}
