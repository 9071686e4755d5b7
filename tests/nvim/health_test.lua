-- Headless Neovim test of `:checkhealth tsocheck`: the report names the
-- server binary and where it was found, its --version, the frontend worker,
-- the Neovim version, nvim-dap (absent, then a stand-in with a `tsocheck`
-- adapter) with the release that fits Neovim 0.7.2, and the compile database
-- of the buffer checkhealth was run from; a missing binary is an ERROR line
-- with the places looked at; the help file's tags. Writes ok/PASS/FAIL lines to $TSOCHECK_E2E_OUT.
--
-- Environment: TSOCHECK_NVIM_DIR (nvim), TSOCHECK_EXPECT_BIN and
-- TSOCHECK_EXPECT_SOURCE (what server_path() must find), TSOCHECK_DB (the
-- compile_commands.json above the opened file), TSOCHECK_HELP_RT (a folder
-- holding a copy of nvim/doc).
package.path = debug.getinfo(1, 'S').source:match('^@(.*/)') .. '?.lua;' .. package.path
local h = require('helpers')
local note, check, fail = h.note, h.check, h.fail

vim.opt.runtimepath:prepend(os.getenv('TSOCHECK_NVIM_DIR'))
vim.notify = function() end
require('tsocheck').setup({})

-- Runs :checkhealth tsocheck from the current window; returns the report's
-- text and goes back to the window it came from.
local function checkhealth()
  local win = vim.api.nvim_get_current_win()
  vim.cmd('checkhealth tsocheck')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  vim.cmd('tabclose')
  vim.api.nvim_set_current_win(win)
  return text
end

-- The report line holding `needle`, with the level it is reported at.
local function line_with(text, needle)
  for l in (text .. '\n'):gmatch('(.-)\n') do
    if l:find(needle, 1, true) then return l end
  end
  fail('no line with "' .. needle .. '" in the report:\n' .. text)
end
local function level_of(line)
  return line:match('(OK)') or line:match('(ERROR)') or line:match('(WARNING)') or line:match('(INFO)') or '?'
end

local function test()
  local expect, source = os.getenv('TSOCHECK_EXPECT_BIN'), os.getenv('TSOCHECK_EXPECT_SOURCE')
  local text = checkhealth()
  check(not text:find('No healthcheck found', 1, true) and not text:find('Failed to run healthcheck', 1, true),
    'checkhealth failed:\n' .. text)
  local l = line_with(text, 'server: ' .. expect)
  check(level_of(l) == 'OK', l)
  local from = source == 'development' and 'the development build' or 'PATH'
  check(l:find(from, 1, true), 'where from: ' .. l)
  local version = vim.trim(vim.fn.system({ expect, '--version' }))
  check(level_of(line_with(text, 'version: ' .. version)) == 'OK', 'version line')
  check(level_of(line_with(text, 'C frontend worker: ')) == 'OK', 'worker line')
  local v = vim.version()
  line_with(text, string.format('Neovim %d.%d.%d', v.major, v.minor, v.patch))
  check(level_of(line_with(text, 'nvim-dap not installed')) ~= 'ERROR', 'nvim-dap absent is not an error')
  line_with(text, 'on Neovim 0.7.2 use nvim-dap 0.6.0')
  local db = line_with(text, 'compile database: ')
  check(level_of(db) == 'OK' and db:find(os.getenv('TSOCHECK_DB'), 1, true), 'compile database: ' .. db)
  note('report: ' .. vim.trim(l) .. ' / ' .. vim.trim(db))

  -- nvim-dap present (a stand-in module) with the adapter of the README.
  package.preload['dap'] = function() return { adapters = {}, configurations = {} } end
  require('dap').adapters.tsocheck = require('tsocheck').dap_adapter()
  text = checkhealth()
  check(level_of(line_with(text, 'nvim-dap found, adapter `tsocheck` configured')) == 'OK', 'nvim-dap found')
  note('nvim-dap present: ' .. vim.trim(line_with(text, 'nvim-dap found')))

  -- A buffer without a compile database above it.
  local tmp = vim.fn.tempname()
  vim.fn.mkdir(tmp, 'p')
  vim.cmd('edit ' .. vim.fn.fnameescape(tmp .. '/lone.c'))
  text = checkhealth()
  line_with(text, 'no compile_commands.json in the file\'s folder or above')
  vim.cmd('bwipeout!')

  -- No binary: an ERROR with the places looked at.
  require('tsocheck').setup({ cmd = { '/nonexistent/tsocheck', 'lsp' } })
  text = checkhealth()
  local e = line_with(text, 'no tsocheck binary')
  check(level_of(e) == 'ERROR' and e:find('/nonexistent/tsocheck', 1, true), 'missing binary: ' .. e)
  note('missing binary: ' .. vim.trim(e))
end

-- The help file: :helptags on a copy of nvim/doc succeeds, :help tsocheck
-- and the other tags open it, and every |tsocheck...| link names a tag.
local function help()
  local rt = os.getenv('TSOCHECK_HELP_RT')
  vim.opt.runtimepath:prepend(rt)
  vim.v.errmsg = ''
  vim.cmd('helptags ' .. vim.fn.fnameescape(rt .. '/doc'))
  check(vim.v.errmsg == '', ':helptags: ' .. vim.v.errmsg)
  local tags = {}
  for _, l in ipairs(vim.fn.readfile(rt .. '/doc/tags')) do tags[l:match('^[^\t]+')] = true end
  for _, tag in ipairs({ 'tsocheck', 'tsocheck-mappings', 'tsocheck-]s', 'tsocheck-health', 'tsocheck-dap',
                         ':TsocheckTrace', ':TsocheckStep', 'tsocheck-settings' }) do
    check(tags[tag], 'no help tag ' .. tag)
    vim.cmd('help ' .. vim.fn.escape(tag, ' []'))
    check(vim.fn.expand('%:t') == 'tsocheck.txt' and vim.bo.buftype == 'help', ':help ' .. tag .. ' opened ' .. vim.fn.expand('%'))
    vim.cmd('helpclose')
  end
  for link in table.concat(vim.fn.readfile(rt .. '/doc/tsocheck.txt'), '\n'):gmatch('|([^|%s]+)|') do
    if link:find('tsocheck', 1, true) or link:find('Tsocheck', 1, true) then
      check(tags[link], 'the link |' .. link .. '| names no tag')
    end
  end
  note(vim.tbl_count(tags) .. ' help tags; :help tsocheck opens tsocheck.txt')
end

h.run(':checkhealth tsocheck', function() help() test() end)
