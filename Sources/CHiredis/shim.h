// hiredis, the C client of Redis (Debian libhiredis-dev, Homebrew hiredis): the synchronous API
// the ModelStoreRedis product binds (connections with timeouts, commands by argument vector,
// pipelining by append and get-reply).
#include <hiredis/hiredis.h>
