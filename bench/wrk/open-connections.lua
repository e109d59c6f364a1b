-- For bench/cache.mjs: each connection's first request waits 1 s, so all `-- <connections>` are open
-- and accepted before any measured request (bench/cache.mjs adds the 1 s to -d). Node 20's libuv
-- accepts one connection per event-loop turn, so without it a burst of new ones meets a queue.
local opened = 0
local connections = 0
init = function(args) connections = tonumber(args[1]) or 0 end
-- The first `connections` calls are one per connection: none asks twice before its first answer.
delay = function()
  if opened < connections then opened = opened + 1; return 1000 end
  return 0
end
