-- POST an RPC call with a random argument.
math.randomseed(os.time())
wrk.headers["Content-Type"] = "application/json"
request = function()
  return wrk.format("POST", "/rest/v1/rpc/bench_owner_total", nil, '{"owner":' .. math.random(1, 1000) .. '}')
end
