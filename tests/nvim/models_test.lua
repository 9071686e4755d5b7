-- Headless Neovim 0.7 test of "where does it break?": with
-- init_options.compareModels the server checks the relaxed message-passing
-- sample under SC, TSO, PSO and RC11; the buffer's code lenses (virtual
-- text) show the server's line `SC ✓  TSO ✓  PSO ✓  RC11 ✗`, the hover on
-- the check shows it too, and the diagnostics stay TSO's (none).
-- Writes ok/PASS/FAIL lines to $TSOCHECK_E2E_OUT.
package.path = debug.getinfo(1, 'S').source:match('^@(.*/)') .. '?.lua;' .. package.path
local h = require('helpers')
local note, check, has = h.note, h.check, h.has
h.capture({ echo = true })

vim.opt.runtimepath:append(os.getenv('TSOCHECK_TREE') .. '/nvim')
local M = require('tsocheck')
M.setup({
  cmd = { os.getenv('TSOCHECK_BIN'), 'lsp' },
  init_options = { model = 'tso', compareModels = { 'sc', 'tso', 'pso', 'rc11' } },
})

local line = 'SC ✓  TSO ✓  PSO ✓  RC11 ✗'

h.run('models: the line of verdicts under each model in the lens and the hover', function()
  local bufnr = vim.api.nvim_get_current_buf()
  local fn_line
  for i, l in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if has(l, 'c11_message_passing') then fn_line = i end
  end
  check(fn_line, 'the copy has no check function')

  -- 1. The lens: the module refreshes lenses when the status says the line came.
  check(vim.wait(60000, function() return has(h.lens_titles(bufnr), line) end, 50),
    'no lens "' .. line .. '": ' .. h.lens_titles(bufnr))
  note('lenses: ' .. h.lens_titles(bufnr))
  check(has(h.lens_titles(bufnr), 'verified under TSO'), 'the verdict lens is not TSO\'s: ' .. h.lens_titles(bufnr))
  local shown = {}
  for _, ns in pairs(vim.api.nvim_get_namespaces()) do
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, { details = true })) do
      for _, chunk in ipairs((m[4] or {}).virt_text or {}) do table.insert(shown, chunk[1]) end
    end
  end
  check(has(table.concat(shown, ''), line), 'the line is not in the virtual text: ' .. table.concat(shown, ' | '))

  -- 2. The diagnostics are TSO's: none.
  check(#vim.diagnostic.get(bufnr) == 0, 'diagnostics under TSO: ' .. vim.inspect(vim.diagnostic.get(bufnr)))

  -- 3. The hover on the check.
  local client = require('tsocheck.client').client_for(bufnr)
  check(client, 'no tsocheck client on the buffer')
  local res = client.request_sync('textDocument/hover', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = fn_line - 1, character = 6 },
  }, 10000, bufnr)
  local md = res and res.result and res.result.contents and res.result.contents.value or ''
  check(has(md, '`' .. line .. '`'), 'the hover lacks the line: ' .. md)
  note('hover: ' .. vim.trim(md))
end)
