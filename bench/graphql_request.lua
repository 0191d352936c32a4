-- wrk script for bench/graphql.sh: each request POSTs one GraphQL query to kprov serve for a
-- random runtime or operation of the seeded store, with that runtime's tenant (so no request
-- rewrites a tenant), and counts answers that carry GraphQL errors.
--
--   wrk ... -s bench/graphql_request.lua URL -- operation|status IDS_FILE [check]
-- IDS_FILE: one "operation_id runtime_id tenant" per line.
-- The requests are built once per thread in init(), so that the client costs little more per
-- request than plain wrk. Answers are only read with "check" (wrk then hands every response to
-- Lua, which costs the client several times the server's share): graphql.sh checks in a short
-- run of its own before the measured one.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

local queries = {
  operation = 'query OperationStatus($id: String!) { runtimeOperationStatus(id: $id) { id '
    .. 'operation state message runtimeID compassRuntimeID lastError { errMessage reason '
    .. 'component } } }',
  status = 'query RuntimeStatus($id: String!) { runtimeStatus(id: $id) { lastOperationStatus { '
    .. 'id operation state message runtimeID lastError { errMessage reason component } } '
    .. 'runtimeConfiguration { clusterConfig { name kubernetesVersion provider region seed '
    .. 'machineType machineImage diskType volumeSizeGB workerCidr autoScalerMin autoScalerMax '
    .. 'maxSurge maxUnavailable purpose euAccess oidcConfig { clientID issuerURL } '
    .. 'providerSpecificConfig { __typename ... on GCPProviderConfig { zones } '
    .. '... on AWSProviderConfig { vpcCidr awsZones { name workerCidr } } } } } } }',
}

function init(args)
  mode = args[1]
  query = queries[mode]
  if not query then
    error("the first script argument must be operation or status")
  end
  ids = {}
  for line in io.lines(args[2]) do
    local op, rt, tenant = line:match("^(%S+)%s+(%S+)%s+(%S+)")
    if op then
      ids[#ids + 1] = { op = op, rt = rt, tenant = tenant }
    end
  end
  math.randomseed(os.time() + #threads * 7919 + tonumber(tostring({}):match("0x(%x+)"), 16) % 100000)
  -- Each thread sends the ids in its own random order.
  requests = {}
  for i = #ids, 2, -1 do
    local j = math.random(i)
    ids[i], ids[j] = ids[j], ids[i]
  end
  for i, e in ipairs(ids) do
    local id = mode == "status" and e.rt or e.op
    local body = '{"query":"' .. query .. '","variables":{"id":"' .. id .. '"}}'
    requests[i] = wrk.format("POST", nil,
      { ["Content-Type"] = "application/json", ["Tenant"] = e.tenant }, body)
  end
  next_request = 0
  graphql_errors = 0
  if args[3] ~= "check" then
    response = nil
  end
end

function request()
  next_request = next_request % #requests + 1
  return requests[next_request]
end

function response(status, headers, body)
  if body:find('"errors"', 1, true) then
    graphql_errors = graphql_errors + 1
  end
end

function done(summary, latency, requests)
  local errors = 0
  for _, thread in ipairs(threads) do
    errors = errors + (thread:get("graphql_errors") or 0)
  end
  io.write(string.format("GraphQL answers with errors: %d\n", errors))
end
