-- wrk script: requests the tiles listed in the file named by the PATHS
-- environment variable (one relative path a line), in random order, under
-- the PREFIX path, asking for gzip as a map client does. QUERY, when set,
-- is appended to every path (keys.sh: "?key=...").
local paths = {}
local prefix = os.getenv("PREFIX") or "/"
local query = os.getenv("QUERY") or ""

local function load()
  local f = assert(io.open(os.getenv("PATHS") or "paths.txt", "r"))
  for line in f:lines() do
    if #line > 0 then paths[#paths + 1] = line end
  end
  f:close()
end

load()

function setup(thread)
  thread:set("seed", math.random(1, 1e9))
end

function init(args)
  math.randomseed(seed or os.time())
  wrk.headers["Accept-Encoding"] = "gzip"
end

function request()
  return wrk.format("GET", prefix .. paths[math.random(#paths)] .. query)
end

local statuses = {}
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end
