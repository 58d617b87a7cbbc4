-- GET one item by primary key, a random one each request.
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/rest/v1/bench_items?select=*&id=eq." .. math.random(1, 10000))
end
