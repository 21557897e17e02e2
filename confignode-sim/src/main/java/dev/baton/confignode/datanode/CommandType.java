package dev.baton.confignode.datanode;

/** The commands of a DataNode: the name recorded in its ledger, the path it is posted to. */
enum CommandType {
  PING("ping", "/ping", DataNodeRequest.Ping.class),
  CREATE_REGION("create_region", "/regions/create", DataNodeRequest.CreateRegion.class),
  DELETE_REGION("delete_region", "/regions/delete", DataNodeRequest.DeleteRegion.class),
  SET_REGION_ROLE("set_region_role", "/regions/role", DataNodeRequest.SetRegionRole.class),
  SYNC_REGION("sync_region", "/regions/sync", DataNodeRequest.SyncRegion.class),
  INVALIDATE_CACHE("invalidate_cache", "/cache/invalidate", DataNodeRequest.InvalidateCache.class);

  private final String commandName;
  private final String path;
  private final Class<? extends DataNodeRequest> requestClass;

  CommandType(String commandName, String path, Class<? extends DataNodeRequest> requestClass) {
    this.commandName = commandName;
    this.path = path;
    this.requestClass = requestClass;
  }

  String commandName() {
    return commandName;
  }

  String path() {
    return path;
  }

  Class<? extends DataNodeRequest> requestClass() {
    return requestClass;
  }

  static CommandType of(DataNodeRequest request) {
    for (CommandType type : values()) {
      if (type.requestClass.isInstance(request)) {
        return type;
      }
    }
    throw new IllegalArgumentException("no command type for " + request.getClass().getName());
  }
}
