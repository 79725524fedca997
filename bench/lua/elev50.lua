-- /elevation/{50 points}.json
math.randomseed(42)
request = function()
  local pts = {}
  for i = 1, 50 do
    pts[i] = string.format("%.4f,%.4f", math.random() * 359.8 - 179.9, math.random() * 170 - 85)
  end
  return wrk.format("GET", "/elevation/" .. table.concat(pts, ";") .. ".json")
end
