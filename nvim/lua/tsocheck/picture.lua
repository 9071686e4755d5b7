-- :TsocheckPicture — a check's violating interleaving as thread lanes (the
-- server's `tsocheck/tracePicture` text: a column per thread, steps down the
-- page, pending stores, each read's source, the failing step) in a scratch
-- split. The server draws it; this module only shows it, and <CR> (or a
-- double-click) on a step's line goes to that step's source, from the rows
-- the server names (its `steps`).
local util = require('tsocheck.util')

local M = {}

-- Per picture buffer: the server's `steps` by text line (1-based), the window
-- the command ran in, the C buffer and the client's root (to resolve files).
local shown = {}

-- The buffer's name for a check function's picture.
local function scratch_name(fn) return 'tsocheck://picture/' .. fn end

--- The step shown on line lnum of picture buffer buf (nil: none there).
function M.step_at(buf, lnum)
  local p = shown[buf]
  return p and p.rows[lnum] or nil
end

--- <CR> / double-click in a picture: the source of the step on the cursor's
--- line, in the window the picture was opened from (else the previous one,
--- else a window showing the checked buffer, else any normal window).
function M.follow(buf)
  local p = shown[buf]
  local lnum = vim.api.nvim_win_get_cursor(0)[1]
  local s = M.step_at(buf, lnum)
  if not p or not s then
    util.notify('no step on this line of the picture', vim.log.levels.WARN)
    return
  end
  local checked = p.bufnr and vim.api.nvim_buf_is_valid(p.bufnr) and p.bufnr or buf
  local win = util.source_win({ p.origin or -1, vim.fn.win_getid(vim.fn.winnr('#')) }, checked)
  if not win then
    util.notify('no window to show step ' .. util.value_text(s.step) .. ' in', vim.log.levels.ERROR)
    return
  end
  local target, why = util.show_source(win, util.resolve(s.file, checked, p.root), s.line, s.column)
  if not target then
    util.notify('step ' .. util.value_text(s.step) .. ': ' .. why, vim.log.levels.ERROR)
  end
end

-- The double-click lands on the line clicked (the mouse may be elsewhere
-- than the cursor when the first click did not move it).
local function follow_click(buf)
  local ok, pos = pcall(vim.fn.getmousepos)
  if ok and type(pos) == 'table' and pos.winid == vim.api.nvim_get_current_win() and (pos.line or 0) > 0 then
    pcall(vim.api.nvim_win_set_cursor, 0, { pos.line, 0 })
  end
  M.follow(buf)
end

--- Opens (or refreshes) a scratch split with `text` for check function `fn`.
--- `where` (optional): {steps = the server's rows, origin = the window to
--- jump in, bufnr = the checked buffer, root = the client's root}.
--- Returns the scratch buffer.
function M.show(fn, text, where)
  where = where or {}
  local name = scratch_name(fn)
  local buf = vim.fn.bufnr(name)
  if buf == -1 or not vim.api.nvim_buf_is_valid(buf) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].buftype = 'nofile'
    vim.bo[buf].bufhidden = 'wipe'
    vim.bo[buf].swapfile = false
    vim.bo[buf].filetype = 'tsocheckpicture'
    for _, lhs in ipairs({ '<CR>', '<2-LeftMouse>' }) do
      vim.keymap.set('n', lhs, function()
        if lhs == '<CR>' then M.follow(buf) else follow_click(buf) end
      end, { buffer = buf, silent = true, desc = 'tsocheck: go to the source of the step on this line' })
    end
    vim.api.nvim_create_autocmd('BufWipeout', { buffer = buf, once = true, callback = function() shown[buf] = nil end })
  end
  local rows = {}
  for _, s in ipairs(type(where.steps) == 'table' and where.steps or {}) do
    if type(s) == 'table' and tonumber(s.row) then rows[tonumber(s.row) + 1] = s end
  end
  shown[buf] = { rows = rows, origin = where.origin, bufnr = where.bufnr, root = where.root }
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then table.remove(lines) end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
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
  local origin = vim.api.nvim_get_current_win()
  local root = client.config and client.config.root_dir or nil
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, ['function'] = fn }
  local ok, sent = pcall(h.request, client, 'tsocheck/tracePicture', params, function(err, result)
    if err then
      h.notify('picture of `' .. fn .. '` failed: ' .. util.error_text(err), vim.log.levels.ERROR)
      return
    end
    if type(result) ~= 'table' or type(result.text) ~= 'string' then
      h.notify('`' .. fn .. '` has no violation: there is no interleaving to draw', vim.log.levels.INFO)
      return
    end
    M.show(fn, result.text, { steps = result.steps, origin = origin, bufnr = bufnr, root = root })
    pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'TsocheckPictureShown', modeline = false })
  end, bufnr)
  util.check_sent(ok, sent)
end

return M
