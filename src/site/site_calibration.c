/* The runner's calibration on the site: what the gate sees on the setup
 * of the newest run (benchsite calibrate), given with --calibration or
 * kept in the archive's calibrations/; a calibration of another setup is
 * named with the reason it does not apply, never shown as applying. */
#include "site_int.h"

#include "benchsite/calibration_note.h"

#include "oom.h"

#include <stdio.h>
#include <stdlib.h>

bs_status bs__site_calibration(site *s, const char *archive_dir,
                               bs_error *err) {
  const bs_history *h = s->h;
  if (!h->nruns)
    return BS_OK; /* no run whose setup it could hold for */
  const bs_manifest *newest = h->runs[bs_history_newest(h)].manifest;
  if (s->o->calibration) {
    s->cal = s->o->calibration;
    s->cal_name = s->o->calibration_name ? s->o->calibration_name : "";
    s->cal_applies = !bs_calibration_summary_difference(
        s->cal, newest, "the newest run", s->cal_why, sizeof s->cal_why);
    return BS_OK;
  }
  char *dir = bs__path_join(archive_dir, BS_CALIBRATIONS_DIR);
  if (!dir)
    return bs__oom(err);
  bs_status st =
      bs_calibration_pick_dir(dir, newest, "the newest run", &s->cal_pick, err);
  free(dir);
  if (st)
    return st;
  bs_calibration_pick *p = &s->cal_pick;
  s->cal_read = p->read;
  if (p->chosen) {
    s->cal = p->chosen;
    s->cal_name = p->chosen_name;
    s->cal_applies = 1;
  } else if (p->newest) {
    s->cal = p->newest;
    s->cal_name = p->newest_name;
    snprintf(s->cal_why, sizeof s->cal_why, "%s", p->why);
  }
  return BS_OK;
}

void bs__site_calibration_fields(const site *s, bs_tval *root) {
  if (!s->cal)
    return;
  bs_tval *t = bs_tval_set_obj(root, "calibration");
  bs_tval_set_bool(t, "applies", s->cal_applies);
  bs_tval_set_str(t, "name", s->cal_name);
  /* The day is enough, as in the note. */
  bs_tval_set_strf(t, "date", "%.10s", s->cal->date);
  bs_tval_set_strf(t, "reps", "%llu", (unsigned long long)s->cal->reps);
  bs_tval_set_bool(t, "from_archive", s->cal_read > 0);
  bs_tval_set_strf(t, "read", "%zu", s->cal_read);
  if (s->cal_applies) {
    char note[256];
    bs_calibration_note(s->cal, note, sizeof note);
    if (note[0] == 'o')
      note[0] = 'O'; /* the note begins a sentence here */
    bs_tval_set_str(t, "note", note);
  } else {
    bs_tval_set_str(t, "why", s->cal_why);
  }
}
