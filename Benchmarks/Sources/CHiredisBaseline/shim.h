// hiredis for the fleet experiment's baseline: a raw GET through the same client library the
// shared tier uses (the root package's CHiredis module is internal to ModelStoreRedis).
#include <hiredis/hiredis.h>
