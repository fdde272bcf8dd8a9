#include "xmlload.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#ifndef BENCHSITE_LIBXML2_SONAME
#error "the build records libxml2's soname in BENCHSITE_LIBXML2_SONAME"
#endif

/* The process has one libxml2, as it would have had one linked in: the
 * table is filled once and never changes after. */
bs__xml_api bs__xml;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static bs_status load_status;
static bs_error load_err;

const char *bs__xml_soname(void) { return BENCHSITE_LIBXML2_SONAME; }

bs_status bs__xml_open(const char *soname, bs__xml_api *api, bs_error *err) {
  memset(api, 0, sizeof *api);
  /* Bound now, as the dynamic loader bound it at start-up before: a symbol
   * missing from the library is found here, not at some later call. */
  void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    bs_error_set(err, BS_EPLOT, NULL, 0,
                 "cannot load libxml2 (%s), which checks every chart before "
                 "it is published: %s",
                 soname, why ? why : "unknown error");
    return BS_EPLOT;
  }
  void *sym;
  /* A data pointer to a function pointer: copied, as POSIX's dlsym
   * allows and ISO C's casts do not. */
#define BS__XML_LOOKUP(name)                                                   \
  dlerror();                                                                   \
  if (!(sym = dlsym(h, #name)))                                                \
    goto missing;                                                              \
  _Static_assert(sizeof api->name == sizeof sym, "pointer sizes differ");      \
  memcpy(&api->name, &sym, sizeof sym);
  BS__XML_SYMBOLS(BS__XML_LOOKUP)
#undef BS__XML_LOOKUP
  return BS_OK;
missing:;
  const char *why = dlerror();
  bs_error_set(err, BS_EPLOT, NULL, 0,
               "cannot use libxml2 (%s), which checks every chart before it "
               "is published: %s",
               soname, why ? why : "a symbol is missing");
  memset(api, 0, sizeof *api);
  dlclose(h);
  return BS_EPLOT;
}

static void load(void) {
  load_status = bs__xml_open(bs__xml_soname(), &bs__xml, &load_err);
  /* libxml2 sets itself up once, before any thread parses (the once
   * makes every other caller wait for it). */
  if (!load_status)
    bs__xml.xmlInitParser();
}

bs_status bs__xml_load(bs_error *err) {
  pthread_once(&load_once, load);
  if (load_status && err)
    *err = load_err;
  return load_status;
}
