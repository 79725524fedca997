-- /geolocation/ip.json for random IPv4 addresses through a trusted proxy
math.randomseed(42)
request = function()
  local ip = string.format("%d.%d.%d.%d", math.random(1, 223), math.random(0, 255), math.random(0, 255), math.random(1, 254))
  return wrk.format("GET", "/geolocation/ip.json", {["X-Forwarded-For"] = ip})
end
