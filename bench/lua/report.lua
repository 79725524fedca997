done = function(summary, latency, requests)
  for _, p in pairs({50, 90, 95, 98, 99, 99.5, 99.9, 99.99}) do
    io.write(string.format("p%g=%.2fms ", p, latency:percentile(p) / 1000))
  end
  io.write(string.format("max=%.2fms\n", latency.max / 1000))
end
