-- The language client: where the server binary is, one `tsocheck lsp` per
-- root directory attached to every C buffer under it, and the client of a
-- buffer.
local util = require('tsocheck.util')
local config = util.config
local notify = util.notify

local M = {}

-- root_dir -> client id
local clients = {}

local function root_for(bufnr)
  local r = config.root_dir
  if type(r) == 'function' then r = r(bufnr) end
  if type(r) ~= 'string' or r == '' then r = vim.fn.getcwd() end
  return r
end
M.root_for = root_for

local function client_alive(id)
  local c = id and vim.lsp.get_client_by_id(id)
  if not c then return nil end
  if c.is_stopped and c.is_stopped() then return nil end
  return c
end

-- The tsocheck tree this module belongs to: .../nvim/lua/tsocheck/client.lua.
local function module_tree()
  local src = debug.getinfo(1, 'S').source
  if type(src) ~= 'string' or src:sub(1, 1) ~= '@' then return nil end
  return vim.fn.fnamemodify(src:sub(2), ':p:h:h:h:h')
end

local function executable_file(p)
  return type(p) == 'string' and p ~= '' and vim.fn.executable(p) == 1
end

--- Where the server binary is, like the VS Code extension: the `cmd` option
--- (cmd[1]; a bare name is looked up on PATH, never replaced by another
--- binary), else the development build <tree>/build/lsp/tsocheck, else
--- `tsocheck` on PATH. Returns path, source ('cmd'|'development'|'PATH') or
--- nil, { places tried }.
function M.server_path(cmd)
  cmd = cmd or config.cmd
  if type(cmd) == 'string' then cmd = { cmd } end
  local tried = {}
  if type(cmd) == 'table' and cmd[1] then
    local exe = vim.fn.expand(tostring(cmd[1]))
    table.insert(tried, exe)
    if exe:find('/', 1, true) then
      if executable_file(exe) then return exe, 'cmd' end
    else
      local found = vim.fn.exepath(exe)
      if found ~= '' then return found, 'cmd' end
    end
    return nil, tried
  end
  local tree = module_tree()
  if tree then
    local dev = tree .. '/build/lsp/tsocheck'
    table.insert(tried, dev)
    if executable_file(dev) then return dev, 'development' end
  end
  table.insert(tried, 'tsocheck on PATH')
  local found = vim.fn.exepath('tsocheck')
  if found ~= '' then return found, 'PATH' end
  return nil, tried
end

--- The command that starts the language server (nil when there is no binary).
function M.server_cmd()
  local exe = M.server_path()
  if not exe then return nil end
  local cmd = { exe }
  if type(config.cmd) == 'table' and #config.cmd > 1 then
    for i = 2, #config.cmd do table.insert(cmd, config.cmd[i]) end
  else
    table.insert(cmd, 'lsp')
  end
  return cmd
end

local warned_missing = false

-- Starts a client and attaches bufnr to it: vim.lsp.start on Neovim 0.8+,
-- vim.lsp.start_client and buf_attach_client on 0.7. Returns the client id.
local function start(bufnr, cfg)
  if vim.lsp.start then return vim.lsp.start(cfg, { bufnr = bufnr }) end
  local id = vim.lsp.start_client(cfg)
  if id then vim.lsp.buf_attach_client(bufnr, id) end
  return id
end

function M.attach(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= '' then return end
  local status = require('tsocheck.status')
  local root = root_for(bufnr)
  local id = clients[root]
  if not client_alive(id) then
    local cmd = M.server_cmd()
    if not cmd then
      if not warned_missing then
        warned_missing = true
        local _, tried = M.server_path()
        notify('cannot start the language server: no tsocheck binary (looked at: ' .. table.concat(tried, ', ')
          .. '). Build it (cmake --build build) or pass cmd = { \'/path/to/tsocheck\', \'lsp\' } to setup().',
          vim.log.levels.ERROR)
      end
      return
    end
    local ok, res = pcall(start, bufnr, {
      name = config.name,
      cmd = cmd,
      root_dir = root,
      -- An empty Lua table would be sent as [] (the server wants an object).
      init_options = next(config.init_options or {}) and config.init_options or vim.empty_dict(),
      on_attach = config.on_attach,
      capabilities = config.capabilities,
      commands = status.lens_commands,
      handlers = status.handlers,
    })
    if not ok or not res then
      notify('cannot start the language server ' .. table.concat(cmd, ' ') .. ': ' .. tostring(res),
        vim.log.levels.ERROR)
      return
    end
    clients[root] = res
    return
  end
  vim.lsp.buf_attach_client(bufnr, id)
end

--- The tsocheck client attached to bufnr, or nil.
function M.client_for(bufnr)
  local list
  if vim.lsp.get_clients then
    list = vim.lsp.get_clients({ bufnr = bufnr, name = config.name })
  else
    list = vim.lsp.buf_get_clients(bufnr)
  end
  for _, c in pairs(list or {}) do
    if c.name == config.name and not (c.is_stopped and c.is_stopped()) then return c end
  end
  return nil
end

return M
