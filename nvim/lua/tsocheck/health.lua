-- :checkhealth tsocheck — the server binary (which, from where, its
-- version), the Neovim version, nvim-dap, and the compile database of the
-- buffer checkhealth was run from.
local util = require('tsocheck.util')

local M = {}

-- Neovim 0.10+ has vim.health.start/ok/...; 0.7 to 0.9 have report_*.
local function reporter()
  local h = vim.health
  if not (h and (h.start or h.report_start)) then h = require('health') end
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    info = h.info or h.report_info,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
  }
end

local source_words = {
  cmd = 'the `cmd` setting of setup()',
  development = 'the development build of the clone this module is loaded from',
  PATH = 'PATH',
}

-- The buffer the user ran :checkhealth from: checkhealth opens its report in
-- a new tab, so the previous tab's current window; else the alternate buffer.
local function user_buffer()
  local cur = vim.api.nvim_get_current_buf()
  local name = vim.api.nvim_buf_get_name(cur)
  -- (0.7 names the report buffer nothing, 0.10 health://; 'filetype' is not
  -- set when checkhealth runs from an autocommand)
  if vim.bo[cur].filetype ~= 'checkhealth' and name ~= '' and not name:match('^health://') then return cur end
  local tab = vim.fn.tabpagenr('#')
  if tab > 0 then
    local bufs = vim.fn.tabpagebuflist(tab)
    local b = type(bufs) == 'table' and bufs[vim.fn.tabpagewinnr(tab)] or nil
    if b and b > 0 then return b end
  end
  local alt = vim.fn.bufnr('#')
  return alt > 0 and alt or nil
end

--- The nvim-dap release line that supports this Neovim (see :help tsocheck-dap).
M.dap_note = 'on Neovim 0.7.2 use nvim-dap 0.6.0, the last release that supports it '
  .. '(0.8.0 and later stop at launch on 0.7: they call vim.fs)'

function M.check()
  local r = reporter()
  local config = util.config

  r.start('tsocheck: language server')
  local client = require('tsocheck.client')
  local exe, from = client.server_path()
  if not exe then
    r.error('no tsocheck binary (looked at: ' .. table.concat(from or {}, ', ') .. ')',
      { 'build it: cmake --build build --target tsocheck tsocheck-frontend',
        "or pass cmd = { '/path/to/tsocheck', 'lsp' } to require('tsocheck').setup()" })
  else
    r.ok('server: ' .. exe .. ' (from ' .. (source_words[from] or from) .. ')')
    local out = vim.fn.system({ exe, '--version' })
    local first = vim.split(vim.trim(out or ''), '\n', { plain = true })[1] or ''
    if vim.v.shell_error == 0 and first ~= '' then
      r.ok('version: ' .. first)
    else
      r.error(exe .. ' --version failed (exit ' .. vim.v.shell_error .. '): ' .. first)
    end
    local worker = vim.fn.fnamemodify(exe, ':p:h') .. '/tsocheck-frontend'
    if vim.fn.executable(worker) == 1 then
      r.ok('C frontend worker: ' .. worker)
    else
      r.warn('no C frontend worker beside the server: ' .. worker,
        { 'the build puts tsocheck and tsocheck-frontend in the same folder (build/lsp/)' })
    end
  end

  r.start('tsocheck: Neovim')
  local v = vim.version()
  local vtext = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.7') == 1 then
    r.ok('Neovim ' .. vtext .. (vim.lsp.start and ' (starts the client with vim.lsp.start)'
      or ' (starts the client with vim.lsp.start_client)'))
  else
    r.error('Neovim ' .. vtext .. ': tsocheck needs 0.7 or later')
  end

  r.start('tsocheck: debugger (nvim-dap)')
  local has_dap, dap = pcall(require, 'dap')
  if has_dap and type(dap) == 'table' then
    local configured = type(dap.adapters) == 'table' and dap.adapters.tsocheck ~= nil
    r.ok('nvim-dap found' .. (configured and ', adapter `tsocheck` configured'
      or '; no adapter `tsocheck` yet (:help tsocheck-dap)'))
  else
    r.info('nvim-dap not installed: :TsocheckStep walks the same trace without it')
  end
  r.info(M.dap_note)

  r.start('tsocheck: compile database')
  local bufnr = user_buffer()
  if not bufnr or vim.api.nvim_buf_get_name(bufnr) == '' then
    r.info('no file in the current buffer: open a C file and run :checkhealth tsocheck again')
    return
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  local root = client.root_for(bufnr)
  r.info('buffer: ' .. name .. ' (root ' .. root .. ')')
  local init = type(config.init_options) == 'table' and config.init_options or {}
  local dir = init.compileCommandsDir
  local db
  if type(dir) == 'string' and dir ~= '' then
    db = vim.fn.fnamemodify(dir, ':p') .. 'compile_commands.json'
    if vim.fn.filereadable(db) ~= 1 then
      r.warn('compileCommandsDir = ' .. dir .. ' has no readable compile_commands.json')
      return
    end
    r.ok('compile database: ' .. vim.fn.fnamemodify(db, ':p') .. ' (compileCommandsDir)')
    return
  end
  db = vim.fn.findfile('compile_commands.json', vim.fn.fnamemodify(name, ':p:h') .. ';')
  if db ~= '' then
    r.ok('compile database: ' .. vim.fn.fnamemodify(db, ':p') .. ' (the nearest one above the file)')
  else
    r.info('no compile_commands.json in the file\'s folder or above: the file is checked with the default flags')
  end
end

return M
