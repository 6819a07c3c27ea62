// The LP extension: starts `lp lsp` (the command in the `lp.server.command` setting) for .lp files.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("lp").get("server.command", ["lp", "lsp"]);
  client = new LanguageClient(
    "lp",
    "LP language server",
    { command, args },
    { documentSelector: [{ scheme: "file", language: "lp" }] }
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
