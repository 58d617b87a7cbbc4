-- GET a page of 20 items with their owner (to-one) and tags (to-many).
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/rest/v1/bench_items?select=*,owner:bench_owners(*),bench_tags(*)&order=id&limit=20&offset=" .. (math.random(0, 499) * 20))
end
