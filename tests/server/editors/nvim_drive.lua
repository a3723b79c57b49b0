-- Headless Neovim (0.10+) as an LSP client of nnie-lsp.
-- usage: nvim --headless --clean -u NONE -i NONE -l nvim_drive.lua PROJECT_DIR OUT_JSON PYTHON
local dir, out, python = arg[1], arg[2], arg[3]
local result = { steps = {} }

local function finish(code)
  local fh = io.open(out, "w")
  fh:write(vim.json.encode(result))
  fh:close()
  if code == 0 then vim.cmd("qall!") else vim.cmd("cquit " .. code) end
end

local function step(name) table.insert(result.steps, name) end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(dir .. "/model.prototxt"))
  local buf = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start({
    name = "nnie-lsp",
    cmd = { python, "-m", "nnie_lsp" },
    root_dir = dir,
  }, { bufnr = buf })
  result.client_started = client_id ~= nil
  local client = vim.lsp.get_client_by_id(client_id)
  step("started")

  local function find(code)
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == code then return d end
    end
    return nil
  end
  local function codes()
    local t = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do table.insert(t, d.code) end
    table.sort(t)
    return t
  end

  result.got_diagnostics = vim.wait(30000, function() return find("NN301") ~= nil end, 50)
  result.codes_before = codes()
  result.offset_encoding = client.offset_encoding
  result.pull = client.server_capabilities.diagnosticProvider ~= nil
  if not result.got_diagnostics then return end
  step("diagnostics")

  local d = find("NN301")
  result.nn301_line = d.lnum
  local lsp_diag = d.user_data and d.user_data.lsp
  result.has_lsp_payload = lsp_diag ~= nil
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = lsp_diag.range,
    context = { diagnostics = { lsp_diag }, only = { "quickfix" } },
  }
  local resp = client:request_sync("textDocument/codeAction", params, 15000, buf)
  result.titles = {}
  local chosen = nil
  for _, a in ipairs((resp and resp.result) or {}) do
    table.insert(result.titles, a.title)
    if a.isPreferred and chosen == nil then chosen = a end
  end
  if chosen == nil then return end
  step("code actions")
  vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
  result.applied = chosen.title
  step("applied")

  result.cleared = vim.wait(30000, function() return find("NN301") == nil and find("NN302") ~= nil end, 50)
  result.codes_after = codes()
  result.buffer_has_new_top = false
  for _, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if l:find('top: "layer10-act"', 1, true) then result.buffer_has_new_top = true end
  end
  result.modified = vim.bo[buf].modified
  step("done")
end)

if not ok then result.error = tostring(err) end
finish(0)
