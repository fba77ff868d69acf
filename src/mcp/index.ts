// The Node side of MCP Health: real MCP connections behind the core's Connector interface.

export { createNodeConnector, type NodeConnectorOptions } from './nodeConnector';
