-- wrk script for `make bench-drivers`: GET /users/:id at a 90 % hit rate.
-- 90 % of requests pick one of 1,000 hot ids (already cached after the warm-up); 10 % ask for
-- an id never asked before (a miss that goes to the 5 ms upstream).
local counter = 0
local thread_id = 0
local hot_only = false

function setup(thread)
    thread:set("thread_id", thread_id)
    thread_id = thread_id + 1
end

function init(args)
    hot_only = args[1] == "hot"
    math.randomseed(os.time() + thread_id * 7919)
end

function request()
    local id
    if hot_only or math.random() < 0.9 then
        id = "h" .. math.random(1, 1000)
    else
        counter = counter + 1
        id = "m" .. thread_id .. "-" .. counter .. "-" .. os.time()
    end
    return wrk.format("GET", "/users/" .. id)
end
