// A Node-API addon with one function, `trim()`: glibc's malloc_trim(0), which gives the free memory inside the
// malloc arenas back to the OS. glibc returns an arena's memory on its own only from the arena's top; the holes a
// load leaves below live allocations (V8's compiler zones freed around memtable blocks and caches) stay resident
// until malloc_trim is called (docs/PERFORMANCE.md, "Node RSS after the mixed load: what stays resident"). Node has
// no FFI and no binding for it, hence this file. Compiled by scripts/malloc-trim-addon.ts against the Node-API
// headers of the pinned runtime; loaded by src/node/malloc-trim.ts; the heap governor calls it after a reduction.
#include <malloc.h>
#include <node_api.h>

// trim() -> boolean: whether any memory was given back (malloc_trim's own answer).
static napi_value Trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  if (napi_get_boolean(env, malloc_trim(0) != 0, &result) != napi_ok) return NULL;
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, Trim, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", fn) != napi_ok) return NULL;
  return exports;
}
