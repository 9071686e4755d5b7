-- :TsocheckPicture — a check's violating interleaving as thread lanes (the
-- server's `tsocheck/tracePicture` text: a column per thread, steps down the
-- page, pending stores, each read's source, the failing step) in a scratch
-- split. The server draws it; this module only shows it.
local M = {}

-- The buffer's name for a check function's picture.
local function scratch_name(fn) return 'tsocheck://picture/' .. fn end

--- Opens (or refreshes) a scratch split with `text` for check function `fn`.
--- Returns the scratch buffer.
function M.show(fn, text)
  local name = scratch_name(fn)
  local buf = vim.fn.bufnr(name)
  if buf == -1 or not vim.api.nvim_buf_is_valid(buf) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].buftype = 'nofile'
    vim.bo[buf].bufhidden = 'wipe'
    vim.bo[buf].swapfile = false
    vim.bo[buf].filetype = 'tsocheckpicture'
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { trimempty = true }))
  vim.bo[buf].modifiable = false
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd('botright split')
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, buf)
    vim.wo[win].wrap = false
    vim.wo[win].number = false
    vim.wo[win].list = false
    vim.api.nvim_win_set_height(win, math.min(vim.api.nvim_buf_line_count(buf) + 1, math.floor(vim.o.lines / 2)))
  end
  return buf
end

--- :TsocheckPicture [function]. `h` holds the client helpers of the module
--- (client_for, pick_function, request, notify), so that one place finds
--- the client and the check function for every command.
function M.command(fn, bufnr, h)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = h.client_for(bufnr)
  if not client then
    h.notify('no tsocheck language server is attached to this buffer (a C file? setup() called?)',
      vim.log.levels.ERROR)
    return
  end
  if fn == nil or fn == '' then
    return h.pick_function(bufnr, function(named)
      if not named then
        h.notify('no check function here: give one (:TsocheckPicture name) or mark one with TSOCHECK',
          vim.log.levels.WARN)
        return
      end
      M.command(named, bufnr, h)
    end)
  end
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, ['function'] = fn }
  local ok, sent = pcall(h.request, client, 'tsocheck/tracePicture', params, function(err, result)
    if err then
      local msg = type(err) == 'table' and err.message or tostring(err)
      if tostring(msg):find('no result', 1, true) then
        msg = msg .. ' (not checked yet, still running, or not a check function)'
      end
      h.notify('picture of `' .. fn .. '` failed: ' .. tostring(msg), vim.log.levels.ERROR)
      return
    end
    if type(result) ~= 'table' or type(result.text) ~= 'string' then
      h.notify('`' .. fn .. '` has no violation: there is no interleaving to draw', vim.log.levels.INFO)
      return
    end
    M.show(fn, result.text)
    pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'TsocheckPictureShown', modeline = false })
  end, bufnr)
  if not ok or sent == false then
    h.notify('the request could not be sent: ' .. tostring(ok and 'server not running' or sent),
      vim.log.levels.ERROR)
  end
end

return M
