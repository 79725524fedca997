-- /elevation/{lng,lat}.json at one random point
math.randomseed(42)
request = function()
  local lon = math.random() * 359.8 - 179.9
  local lat = math.random() * 170 - 85
  return wrk.format("GET", string.format("/elevation/%.5f,%.5f.json", lon, lat))
end
