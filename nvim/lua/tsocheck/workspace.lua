-- :TsocheckWorkspace: check every harness of the workspace.
--
-- The server finds the workspace's compile_commands.json (at the root, in
-- build/, or in the compileCommandsDir setting), checks each C file it lists
-- (workspace/executeCommand tsocheck.checkWorkspace) and publishes each
-- harness's diagnostics, and the hints in its library files, whether the
-- files are open or not. Its work done progress ("3/12 files") shows in the
-- message area like a check's. :TsocheckWorkspace while a run is going
-- cancels it. When the run ends its answer is echoed, kept in M.last
-- ({ err =, result = }) and `User TsocheckWorkspaceDone` fires.

local M = { last = nil }

local running = nil -- { client =, id = }

local function notify(msg, level)
  vim.notify('tsocheck: ' .. msg, level or vim.log.levels.INFO)
end

-- The client named `name` attached to the current buffer, else any running one.
local function find_client(name)
  local list
  if vim.lsp.get_clients then
    list = vim.lsp.get_clients({ name = name })
  else
    list = vim.lsp.get_active_clients()
  end
  local bufnr = vim.api.nvim_get_current_buf()
  local any
  for _, c in pairs(list or {}) do
    if c.name == name and not (c.is_stopped and c.is_stopped()) then
      if c.attached_buffers and c.attached_buffers[bufnr] then return c end
      any = any or c
    end
  end
  return any
end

local function call(client, method, ...)
  if vim.fn.has('nvim-0.11') == 1 then return client[method](client, ...) end
  return client[method](...)
end

local function summary(r)
  local s = string.format('%s %d/%d files: %d harness%s, %d violation%s',
    r.cancelled and 'cancelled after' or 'checked', r.checked or 0, r.files or 0,
    r.harnesses or 0, r.harnesses == 1 and '' or 'es', r.violations or 0, r.violations == 1 and '' or 's')
  if (r.leftOut or 0) > 0 then s = s .. string.format(' (%d more files not checked)', r.leftOut) end
  if r.skipped and #r.skipped > 0 then s = s .. '; skipped: ' .. table.concat(r.skipped, ', ') end
  return s
end

--- Runs (or, while one runs, cancels) the workspace check on the client `name`.
function M.run(name)
  if running then
    call(running.client, 'cancel_request', running.id)
    notify('cancelling the workspace check')
    return
  end
  local client = find_client(name)
  if not client then
    notify('no tsocheck client is running: open a C file of the workspace first', vim.log.levels.WARN)
    return
  end
  local params = { command = 'tsocheck.checkWorkspace', arguments = {} }
  local ok, id = call(client, 'request', 'workspace/executeCommand', params, function(err, result)
    running = nil
    M.last = { err = err, result = result }
    if err then
      local cancelled = err.code == -32800
      notify(cancelled and ('workspace check ' .. (err.message or 'cancelled')) or ('workspace check failed: ' .. (err.message or '')),
        cancelled and vim.log.levels.INFO or vim.log.levels.ERROR)
    else
      notify('workspace: ' .. summary(result or {}))
    end
    pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'TsocheckWorkspaceDone', modeline = false })
  end)
  if not ok then
    notify('the server did not take the workspace check', vim.log.levels.ERROR)
    return
  end
  running = { client = client, id = id }
end

return M
