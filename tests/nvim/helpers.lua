-- Shared by the headless Neovim tests (tests/nvim/*_test.lua): `ok` lines
-- and the PASS/FAIL verdict written to $TSOCHECK_E2E_OUT, checks that stop a
-- test with a message, the notifications and echoes a user would have seen,
-- and the VimEnter runner. A test finds this file with
--   package.path = debug.getinfo(1, 'S').source:match('^@(.*/)') .. '?.lua;' .. package.path
--   local h = require('helpers')
local H = {}

H.lines = {} -- what the test wrote so far
H.notes = {} -- vim.notify calls: { msg = , level = } (after capture())
H.echoes = {} -- nvim_echo texts (after capture({ echo = true }))

function H.flush()
  local f = assert(io.open(os.getenv('TSOCHECK_E2E_OUT'), 'w'))
  f:write(table.concat(H.lines, '\n') .. '\n')
  f:close()
end

function H.note(msg) table.insert(H.lines, 'ok ' .. msg) end

-- A failed check: an error carrying its message (not a Lua error).
H.Fail = {}
function H.fail(msg) error(setmetatable({ msg = msg }, H.Fail)) end
function H.check(cond, msg) if not cond then H.fail(msg) end end

function H.has(text, needle) return type(text) == 'string' and text:find(needle, 1, true) ~= nil end

--- What a caught error says: a check's message, else the Lua error with its
--- traceback (an xpcall handler).
function H.why(e)
  if getmetatable(e) == H.Fail then return e.msg end
  return 'Lua error: ' .. debug.traceback(tostring(e))
end

--- Keeps vim.notify calls in H.notes instead of showing them; with
--- { echo = true } nvim_echo's texts go to H.echoes (not drawn: headless,
--- they would only clutter the output).
function H.capture(opts)
  vim.notify = function(msg, level) table.insert(H.notes, { msg = msg, level = level or vim.log.levels.INFO }) end
  if opts and opts.echo then
    vim.api.nvim_echo = function(chunks)
      local t = {}
      for _, c in ipairs(chunks) do table.insert(t, c[1]) end
      table.insert(H.echoes, table.concat(t))
    end
  end
end

--- The last notification ({ msg = '', level = -1 } when none came).
function H.last_note() return H.notes[#H.notes] or { msg = '', level = -1 } end

--- The first entry of a list of notes or echoes holding needle (its text).
function H.find(list, needle)
  for _, e in ipairs(list) do
    local s = type(e) == 'table' and e.msg or e
    if H.has(s, needle) then return s end
  end
end

--- The titles of bufnr's code lenses, ' | ' between them.
function H.lens_titles(bufnr)
  local t = {}
  for _, l in ipairs(vim.lsp.codelens.get(bufnr)) do
    if l.command then table.insert(t, l.command.title) end
  end
  return table.concat(t, ' | ')
end

--- Writes the verdict ('PASS ' .. title, or 'FAIL ' .. why) and quits.
function H.finish(ok, title, why)
  table.insert(H.lines, ok and ('PASS ' .. title) or ('FAIL ' .. tostring(why)))
  H.flush()
  vim.cmd('qa!')
end

--- Runs test() once Neovim has loaded the file (VimEnter) and finishes with
--- its verdict. test may return later(last): checks of input that only the
--- main loop reads (keys, mouse), called every 20 ms until it returns true,
--- the last time (last = true) after 5 s.
function H.run(title, test)
  vim.api.nvim_create_autocmd('VimEnter', { nested = true, callback = function()
    local ok, later = xpcall(test, H.why)
    if not ok then return H.finish(false, title, later) end
    if type(later) ~= 'function' then return H.finish(true, title) end
    local deadline = vim.loop.now() + 5000
    local function poll()
      local pok, done = xpcall(later, H.why, vim.loop.now() > deadline)
      if not pok then return H.finish(false, title, done) end
      if done then return H.finish(true, title) end
      vim.defer_fn(poll, 20)
    end
    vim.defer_fn(poll, 20)
  end })
end

return H
