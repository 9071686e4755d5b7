-- nvim-dap: an adapter for `tsocheck dap` (the same binary as the server).
local util = require('tsocheck.util')

local M = {}

--- require('dap').adapters.tsocheck = require('tsocheck').dap_adapter()
function M.adapter()
  local exe, tried = require('tsocheck.client').server_path()
  if not exe then
    util.notify('no tsocheck binary for the debug adapter (looked at: ' .. table.concat(tried, ', ') .. ')',
      vim.log.levels.ERROR)
    return nil
  end
  return { type = 'executable', command = exe, args = { 'dap' } }
end

return M
