-- Headless Neovim 0.7 test of the README's nvim-dap configuration for
-- `tsocheck dap`. nvim-dap is not packaged in Debian (and nothing is vendored),
-- so a stand-in `dap` module takes the README block verbatim (adapters,
-- configurations) and a minimal DAP client in Lua does what nvim-dap's
-- continue() does with them: spawn the adapter, initialize, launch with the
-- configuration (${file} expanded), configurationDone; then it checks that a
-- `stopped` event comes back at the first step, steps over and back.
-- Writes ok/PASS/FAIL lines to $TSOCHECK_E2E_OUT.
--
-- Environment: TSOCHECK_NVIM_DIR (nvim), TSOCHECK_DAP_SNIPPET (the README
-- block), TSOCHECK_EXPECT_BIN (the binary dap_adapter() must name).
package.path = debug.getinfo(1, 'S').source:match('^@(.*/)') .. '?.lua;' .. package.path
local h = require('helpers')
local note, notes = h.note, h.notes
h.capture()

-- The stand-in for nvim-dap: only the tables the configuration fills.
package.preload['dap'] = function() return { adapters = {}, configurations = {} } end
vim.opt.runtimepath:prepend(os.getenv('TSOCHECK_NVIM_DIR'))

-- A minimal DAP client over the adapter's stdio.
local function client(adapter)
  local c = { seq = 0, inbox = {}, raw = '' }
  local stdin, stdout = vim.loop.new_pipe(false), vim.loop.new_pipe(false)
  c.handle = vim.loop.spawn(adapter.command, { args = adapter.args, stdio = { stdin, stdout, nil } },
    function() c.exited = true end)
  assert(c.handle, 'cannot spawn ' .. tostring(adapter.command))
  stdout:read_start(function(_, data)
    if not data then return end
    c.raw = c.raw .. data
    while true do
      local hend = c.raw:find('\r\n\r\n', 1, true)
      if not hend then break end
      local len = tonumber(c.raw:sub(1, hend):match('Content%-Length: *(%d+)'))
      if not len or #c.raw < hend + 3 + len then break end
      local body = c.raw:sub(hend + 4, hend + 3 + len)
      c.raw = c.raw:sub(hend + 4 + len)
      vim.schedule(function() table.insert(c.inbox, vim.fn.json_decode(body)) end)
    end
  end)
  function c.send(command, arguments)
    c.seq = c.seq + 1
    local body = vim.fn.json_encode({ seq = c.seq, type = 'request', command = command, arguments = arguments })
    stdin:write('Content-Length: ' .. #body .. '\r\n\r\n' .. body)
    return c.seq
  end
  -- Waits for (and removes) the first message matching pred.
  function c.wait(pred, what)
    local found
    vim.wait(20000, function()
      for i, m in ipairs(c.inbox) do
        if pred(m) then
          found = table.remove(c.inbox, i)
          return true
        end
      end
      return false
    end, 20)
    assert(found, 'no ' .. what .. ' (received: ' .. vim.inspect(c.inbox) .. ')')
    return found
  end
  function c.response(seq, what)
    local r = c.wait(function(m) return m.type == 'response' and m.request_seq == seq end, what .. ' response')
    assert(r.success, what .. ' failed: ' .. tostring(r.message) .. ' ' .. vim.inspect(r.body))
    return r
  end
  function c.event(name)
    return c.wait(function(m) return m.type == 'event' and m.event == name end, name .. ' event')
  end
  function c.close() pcall(stdin.close, stdin); pcall(stdout.close, stdout); pcall(c.handle.kill, c.handle, 15) end
  return c
end

-- nvim-dap's variable expansion, the part the configuration uses.
local function expand(v)
  if type(v) == 'string' then
    return (v:gsub('%${file}', vim.api.nvim_buf_get_name(0)):gsub('%${workspaceFolder}', vim.fn.getcwd()))
  end
  return v
end

h.run('nvim-dap configuration from the README drives `tsocheck dap`', function()
  dofile(os.getenv('TSOCHECK_DAP_SNIPPET'))
  local dap = require('dap')
  local adapter = dap.adapters.tsocheck
  assert(type(adapter) == 'table' and adapter.type == 'executable', 'adapter: ' .. vim.inspect(adapter)
    .. ' notes: ' .. vim.inspect(notes))
  assert(adapter.command == os.getenv('TSOCHECK_EXPECT_BIN') and adapter.args[1] == 'dap',
    'adapter runs ' .. vim.inspect(adapter))
  local cfg = dap.configurations.c and dap.configurations.c[1]
  assert(cfg and cfg.type == 'tsocheck' and cfg.request == 'launch', 'configuration: ' .. vim.inspect(cfg))
  note('adapter ' .. adapter.command .. ' dap, configuration "' .. cfg.name .. '"')
  local args = {}
  for k, v in pairs(cfg) do args[k] = expand(v) end

  local c = client(adapter)
  local init = c.response(c.send('initialize', { clientID = 'neovim', adapterID = 'tsocheck', pathFormat = 'path',
    linesStartAt1 = true, columnsStartAt1 = true, supportsRunInTerminalRequest = false }), 'initialize')
  assert(init.body and init.body.supportsStepBack, 'initialize: no step back')
  local launch = c.send(cfg.request, args)
  c.event('initialized')
  c.response(c.send('configurationDone', vim.empty_dict()), 'configurationDone')
  c.response(launch, 'launch')
  local stopped = c.event('stopped')
  assert(stopped.body.reason == 'entry', 'first stop: ' .. vim.inspect(stopped.body))
  local tid = stopped.body.threadId
  local st = c.response(c.send('stackTrace', { threadId = tid }), 'stackTrace').body.stackFrames[1]
  assert(st.source and st.source.path == vim.api.nvim_buf_get_name(0) and st.line >= 1, 'frame: ' .. vim.inspect(st))
  note('stopped (entry) on thread ' .. tid .. ' at ' .. vim.fn.fnamemodify(st.source.path, ':t') .. ':' .. st.line
    .. ' — ' .. tostring(st.name))
  c.response(c.send('next', { threadId = tid }), 'next')
  local s2 = c.event('stopped')
  assert(s2.body.reason == 'step', 'after next: ' .. vim.inspect(s2.body))
  c.response(c.send('stepBack', { threadId = tid }), 'stepBack')
  local s3 = c.event('stopped')
  local back = c.response(c.send('stackTrace', { threadId = s3.body.threadId }), 'stackTrace').body.stackFrames[1]
  assert(back.line == st.line, 'step back: line ' .. back.line .. ', first step at ' .. st.line)
  note('next, then step back to line ' .. back.line)
  c.response(c.send('disconnect', { terminateDebuggee = true }), 'disconnect')
  c.close()
end)
