-- Headless Neovim 0.7 end-to-end test of `tsocheck lsp`: open a sample, wait
-- for the TSO diagnostic with its related steps, apply the fence code action
-- and wait for the diagnostic to go away. Writes ok/PASS/FAIL lines to
-- $TSOCHECK_E2E_OUT and quits.
package.path = debug.getinfo(1, 'S').source:match('^@(.*/)') .. '?.lua;' .. package.path
local h = require('helpers')
local note, check = h.note, h.check

local function errors(bufnr)
  return vim.diagnostic.get(bufnr, { severity = vim.diagnostic.severity.ERROR })
end

h.run('diagnostic gone after the fence', function()
  local bufnr = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = 'tsocheck',
    cmd = { os.getenv('TSOCHECK_BIN'), 'lsp' },
    root_dir = vim.fn.getcwd(),
  })
  vim.lsp.buf_attach_client(bufnr, client_id)
  check(vim.wait(30000, function() return #errors(bufnr) > 0 end, 50), 'no TSO diagnostic')
  local d = errors(bufnr)[1]
  local lsp_d = d.user_data and d.user_data.lsp or {}
  check(lsp_d.code == 'tso-assertion', 'code ' .. tostring(lsp_d.code))
  local rel = lsp_d.relatedInformation or {}
  check(#rel >= 5, 'related steps: ' .. #rel)
  -- Neovim stores but does not show relatedInformation: a quickfix list walks the steps.
  local qf = {}
  for _, r in ipairs(rel) do
    table.insert(qf, { filename = vim.uri_to_fname(r.location.uri), lnum = r.location.range.start.line + 1,
                       col = r.location.range.start.character + 1, text = r.message })
  end
  vim.fn.setqflist(qf)
  note('diagnostic with ' .. #rel .. ' related steps')
  -- The verdict is published first; the fence hints (and code actions) when
  -- fence synthesis ends, in a later publish.
  vim.wait(15000, function()
    for _, x in ipairs(vim.diagnostic.get(bufnr)) do
      if x.user_data and x.user_data.lsp and x.user_data.lsp.code == 'fence' then return true end
    end
    return false
  end, 50)
  local client = vim.lsp.get_client_by_id(client_id)
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) },
                   range = { start = { line = d.lnum, character = 0 }, ['end'] = { line = d.lnum, character = 0 } },
                   context = { diagnostics = { lsp_d } } }
  local res = client.request_sync('textDocument/codeAction', params, 5000, bufnr)
  local chosen
  for _, a in ipairs(res and res.result or {}) do if a.isPreferred then chosen = a end end
  check(chosen, 'the server offered no preferred fence action: ' .. vim.inspect(res))
  vim.lsp.util.apply_workspace_edit(chosen.edit, 'utf-16')
  note('applied: ' .. chosen.title)
  check(vim.wait(30000, function() return #errors(bufnr) == 0 end, 50), 'diagnostic still there after the fence')
end)
