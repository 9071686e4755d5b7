-- tsocheck.nvim: tsocheck in Neovim (0.7+), over LSP only. This file keeps
-- setup() and the public API; the work is done by tsocheck.client (server
-- discovery, start, requests), tsocheck.status (status, progress, lenses),
-- tsocheck.trace (trace, quickfix, stepping) and tsocheck.dap.
--
-- Setup (init.lua; the directory nvim of the tsocheck tree on 'runtimepath'):
--
--   vim.opt.runtimepath:append('/path/to/tsocheck/nvim')
--   require('tsocheck').setup({
--     init_options = { checkOn = 'change' },   -- server settings (defaults: a
--                                              -- check's TSOCHECK_WITH wins)
--     -- cmd = { '/path/to/tsocheck', 'lsp' }, -- default: see M.server_path()
--     -- root_dir = string or function(bufnr) -> string (default: the cwd)
--   })
--
-- The server binary (M.server_path): the `cmd` option if given, else the
-- development build build/lsp/tsocheck of the tree this module lives in, else
-- `tsocheck` on PATH. When none is executable, setup() says so once with
-- vim.notify and attaches nothing.
--
-- setup() starts one `tsocheck lsp` client per root directory and attaches it
-- to every C buffer under that root. Commands:
--
--   :TsocheckTrace [function]  load the trace of a check into the quickfix list
--                              (one entry per step) and open it. Without an
--                              argument: the tsocheck diagnostic on the cursor
--                              line, else the check the cursor is in (from the
--                              server's tsocheck/checks), else the buffer's
--                              first violation.
--                              A check without a violation only reports its
--                              status and message.
--   :TsocheckStep {next|prev|first|last|current|close}
--                              walk the loaded trace: jump to the step and
--                              show a float with the step, the store buffers
--                              as the server words them and the shared
--                              memory values known at that point. `current`
--                              shows the step at the quickfix index (after a
--                              :cnext), `close` closes the float.
--   :TsocheckWorkspace         check every harness of the workspace's compile
--                              database (lua/tsocheck/workspace.lua); again
--                              while it runs: cancel.
--
-- Code lenses (vim.lsp.codelens.run() on the lens line) are refreshed after
-- every publishDiagnostics and at the start and end of every check; the lens
-- commands run here: "show trace" loads the quickfix list and shows the first
-- step's float, "re-run" says "re-checked: ..." when the check ends, "run
-- under M" reports the verdict under M.
--
-- Status: `tsocheck/status` and `$/progress` are echoed in the message area
-- (option `progress = false` turns that off); require('tsocheck').status() is
-- a statusline function. After a trace is loaded the autocommand event
-- `User TsocheckTraceLoaded` fires, after a status change `User TsocheckStatus`.
--
-- The loaded trace follows its buffer's results: new diagnostics bring the
-- check's new trace into the same quickfix list (float and highlight closed);
-- a check without a violation any more, or deleting the buffer, clears it
-- (`User TsocheckTraceCleared`).

local M = {}

local util = require('tsocheck.util')
local client = require('tsocheck.client')
local status = require('tsocheck.status')
local trace = require('tsocheck.trace')
local config = util.config

M.server_path = client.server_path
M.server_cmd = client.server_cmd
M.dap_adapter = function(...) return require('tsocheck.dap').adapter(...) end
M.status = status.status
M.lens_commands = status.lens_commands
M.trace = trace.trace
M.step = trace.step
M.step_lines = trace.step_lines
M.current = trace.current

function M.setup(opts)
  for k, v in pairs(opts or {}) do config[k] = v end
  local group = vim.api.nvim_create_augroup('tsocheck', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = config.filetypes,
    callback = function(args) client.attach(args.buf) end,
  })
  -- Buffers already open when setup() runs.
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.tbl_contains(config.filetypes, vim.bo[b].filetype) then
      client.attach(b)
    end
  end
  -- The traced buffer goes: so does its trace.
  vim.api.nvim_create_autocmd({ 'BufDelete', 'BufWipeout' }, {
    group = group,
    callback = function(args)
      if args.buf == trace.traced_buffer() then
        trace.clear_trace(vim.fn.fnamemodify(args.file or '', ':t') .. ' was closed')
      end
    end,
  })
  vim.api.nvim_create_user_command('TsocheckTrace', function(c)
    M.trace(c.args ~= '' and c.args or nil, vim.api.nvim_get_current_buf())
  end, {
    nargs = '?',
    desc = 'tsocheck: load a check\'s violating interleaving into the quickfix list',
    complete = function() return trace.function_names(vim.api.nvim_get_current_buf()) end,
  })
  vim.api.nvim_create_user_command('TsocheckWorkspace', function() require('tsocheck.workspace').run(config.name) end,
    { desc = 'tsocheck: check every harness of the workspace (again: cancel)' })
  vim.api.nvim_create_user_command('TsocheckPicture', function(c) require('tsocheck.picture').command(c.args, 0,
    { client_for = client.client_for, pick_function = trace.pick_function, request = util.request,
      notify = util.notify }) end, { nargs = '?', desc = 'tsocheck: a check\'s interleaving as thread lanes' })
  vim.api.nvim_create_user_command('TsocheckStep', function(c) M.step(c.args) end, {
    nargs = '?',
    desc = 'tsocheck: walk the loaded trace',
    complete = function() return { 'next', 'prev', 'first', 'last', 'current', 'close' } end,
  })
end

return M
