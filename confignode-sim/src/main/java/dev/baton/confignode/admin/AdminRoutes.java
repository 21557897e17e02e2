package dev.baton.confignode.admin;

import java.util.List;

/**
 * A group of admin API endpoints, one resource's. {@link AdminServer} puts every group's endpoints
 * in its {@link RouteTable}, which routes requests and is what the OpenAPI document describes; a
 * new group is one more {@link AdminServer#addRoutes} call.
 */
interface AdminRoutes {
  /** This group's endpoints. */
  List<Endpoint> endpoints();
}
