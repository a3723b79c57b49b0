-- Headless Neovim (0.10+) runs the nnie.triage command on a cfg, gets the triage findings as
-- diagnostics, reads the code lens and applies the RGB_order quick fix.
-- usage: nvim --headless --clean -u NONE -i NONE -l nvim_triage.lua CFG OUT_JSON PYTHON
local cfg, out, python = arg[1], arg[2], arg[3]
local result = { steps = {} }

local function finish()
  local fh = io.open(out, "w")
  fh:write(vim.json.encode(result))
  fh:close()
  vim.cmd("qall!")
end

local function step(name) table.insert(result.steps, name) end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(cfg))
  local buf = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start({
    name = "nnie-lsp",
    cmd = { python, "-m", "nnie_lsp" },
    root_dir = vim.fs.dirname(vim.fs.dirname(cfg)),
  }, { bufnr = buf })
  local client = vim.lsp.get_client_by_id(client_id)
  result.client_started = client ~= nil
  step("started")
  -- wait for the server to be up (the lint's first diagnostics pull)
  vim.wait(30000, function() return client.initialized end, 50)

  local resp = client:request_sync("workspace/executeCommand",
    { command = "nnie.triage", arguments = { { cfg = cfg } } }, 180000, buf)
  if resp == nil or resp.err then
    result.command_error = resp and resp.err and resp.err.message or "timeout"
    return
  end
  result.case = resp.result.case
  result.summary = resp.result.editor.summary
  result.discovered = resp.result.editor.inputs.reference.origin
  step("triage")

  local function triage_diagnostic(code)
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.source == "nnie-triage" and d.code == code then return d end
    end
    return nil
  end
  result.got_finding = vim.wait(30000, function() return triage_diagnostic("T102") ~= nil end, 50)
  if not result.got_finding then return end
  local d = triage_diagnostic("T102")
  result.finding_line = d.lnum
  step("diagnostics")

  local lens = client:request_sync("textDocument/codeLens", { textDocument = { uri = vim.uri_from_bufnr(buf) } }, 15000, buf)
  result.lenses = {}
  for _, l in ipairs((lens and lens.result) or {}) do table.insert(result.lenses, l.command.title) end
  step("lens")

  local lsp_diag = d.user_data and d.user_data.lsp
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = lsp_diag.range,
    context = { diagnostics = { lsp_diag }, only = { "quickfix" } },
  }
  local actions = client:request_sync("textDocument/codeAction", params, 15000, buf)
  result.titles = {}
  local chosen = nil
  for _, a in ipairs((actions and actions.result) or {}) do
    table.insert(result.titles, a.title)
    if chosen == nil and a.title:find("RGB_order", 1, true) then chosen = a end
  end
  if chosen == nil then return end
  vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
  result.applied = chosen.title
  step("applied")

  local rgb_line = vim.api.nvim_buf_get_lines(buf, d.lnum, d.lnum + 1, false)[1]
  result.line_after = rgb_line
  -- the finding now says its fix is in the text (the result is out of date because of it)
  result.fixed = vim.wait(30000, function()
    local now = triage_diagnostic("T102")
    return now ~= nil and now.message:find("fixed since the run", 1, true) ~= nil
  end, 50)
  step("done")
end)

if not ok then result.error = tostring(err) end
finish()
