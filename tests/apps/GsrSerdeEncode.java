// SPDX-License-Identifier: Apache-2.0
import com.amazonaws.services.schemaregistry.common.Schema;
import com.amazonaws.services.schemaregistry.common.configs.GlueSchemaRegistryConfiguration;
import com.amazonaws.services.schemaregistry.serializers.GlueSchemaRegistrySerializerImpl;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * A producer's side of the Glue Schema Registry, with AWS's own serializer (the one Kinesis
 * producers and the KPL call): each line of stdin is a payload in base64 (Avro binary, or JSON
 * text), each line of stdout the record the serializer makes of it, in base64. The schema is
 * registered, or a new version of it, as the serializer's auto-registration does.
 *
 * <p>Arguments: endpoint region registryName schemaName dataFormat (AVRO, JSON) compression
 * (NONE, ZLIB) schemaDefinitionFile. Credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
 */
public class GsrSerdeEncode {
  public static void main(String[] args) throws Exception {
    Map<String, Object> config = new HashMap<>();
    config.put("endpoint", args[0]);
    config.put("region", args[1]);
    config.put("registry.name", args[2]);
    config.put("dataFormat", args[4]);
    config.put("compression", args[5]);
    config.put("schemaAutoRegistrationEnabled", "true");
    StaticCredentialsProvider credentials =
        StaticCredentialsProvider.create(
            AwsBasicCredentials.create(
                System.getenv("AWS_ACCESS_KEY_ID"), System.getenv("AWS_SECRET_ACCESS_KEY")));
    GlueSchemaRegistrySerializerImpl serializer =
        new GlueSchemaRegistrySerializerImpl(credentials, new GlueSchemaRegistryConfiguration(config));
    Schema schema = new Schema(Files.readString(Path.of(args[6])), args[4], args[3]);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      byte[] record = serializer.encode("orders", schema, Base64.getDecoder().decode(line));
      System.out.println(Base64.getEncoder().encodeToString(record));
    }
  }
}
