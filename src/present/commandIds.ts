// Every command MCP Health contributes, by one name. Registrations, tree items, tooltip and dashboard links and
// notifications use these constants; a unit test holds package.json's `contributes.commands` and `menus` to this table
// both ways, so a command cannot be renamed in one place only. Pure: the CLI and tests may import it.

export const Commands = {
  pingNow: 'mcpHealth.pingNow',
  guardServer: 'mcpHealth.guardServer',
  unguardServer: 'mcpHealth.unguardServer',
  pingAll: 'mcpHealth.pingAll',
  reconnect: 'mcpHealth.reconnect',
  restartInVsCode: 'mcpHealth.restartInVsCode',
  showVsCodeOutput: 'mcpHealth.showVsCodeOutput',
  reconnectAll: 'mcpHealth.reconnectAll',
  showLog: 'mcpHealth.showLog',
  refresh: 'mcpHealth.refresh',
  openConfig: 'mcpHealth.openConfig',
  enableMonitoring: 'mcpHealth.enableMonitoring',
  disableMonitoring: 'mcpHealth.disableMonitoring',
  copyDetails: 'mcpHealth.copyDetails',
  copyStatusReport: 'mcpHealth.copyStatusReport',
  supplyInput: 'mcpHealth.supplyInput',
  clearInputs: 'mcpHealth.clearInputs',
  createConfig: 'mcpHealth.createConfig',
  showDashboard: 'mcpHealth.showDashboard',
  allow: 'mcpHealth.allow',
  reviewConsent: 'mcpHealth.reviewConsent',
  withdrawConsent: 'mcpHealth.withdrawConsent',
  resetConsent: 'mcpHealth.resetConsent',
  setMode: 'mcpHealth.setMode',
  openWalkthrough: 'mcpHealth.openWalkthrough',
  resetNotifications: 'mcpHealth.resetNotifications',
  showToolChanges: 'mcpHealth.showToolChanges',
  acceptToolsBaseline: 'mcpHealth.acceptToolsBaseline',
  exportHistory: 'mcpHealth.exportHistory',
  clearHistory: 'mcpHealth.clearHistory',
} as const;

export type CommandId = (typeof Commands)[keyof typeof Commands];

/** Commands VS Code itself makes for the contributed Servers view: used, never contributed or registered by us. */
export const ViewCommands = {
  focusServers: 'mcpHealth.servers.focus',
} as const;
